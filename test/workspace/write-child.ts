/**
 * Run by write-edit.test.ts in a child process, under a file size limit (`ulimit -f`) or as another user:
 * `write_file` writes argv[4] bytes to argv[3] in the workspace argv[2] — more than the limit, so the write
 * fails with EFBIG partway, as on a full disk; or over a file that user may not write. Prints one JSON line:
 * the error's message.
 */
import { writeFileTool } from "../../src/workspace/index.js";

const [cwd, path, bytes] = process.argv.slice(2);
if (!cwd || !path || !bytes) throw new Error("usage: write-child.ts <cwd> <path> <bytes>");

let error: string | undefined;
try {
	const args = { path, content: "n".repeat(Number(bytes)) };
	const toolCall = { type: "toolCall" as const, id: "t1", name: "write_file", arguments: args };
	const context = { toolCall, steeringRequested: new AbortController().signal, messages: [] };
	await writeFileTool({ cwd }).execute("t1", args, new AbortController().signal, () => {}, context);
} catch (thrown) {
	error = thrown instanceof Error ? thrown.message : String(thrown);
}
process.stdout.write(`${JSON.stringify({ error })}\n`);
