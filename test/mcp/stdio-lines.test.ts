/**
 * A stdio server that writes lines that are no JSON-RPC message (a real SDK server as a child process,
 * bad-lines-server.ts): a line meant as a call's answer fails that call at once, with an error that says what
 * was wrong and not what the line held; a log line the server writes beside working calls costs nothing.
 */
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers, type McpConnection } from "../../src/mcp/index.js";
import { answeredId, InvalidLineError, UnnamedErrors } from "../../src/mcp/stdio-lines.js";
import { REPO_ROOT } from "../providers/support/fixtures.js";
import { agentWith, callReply, executeAlone, resultText, textReply } from "./support/harness.js";

const TSX = resolve(REPO_ROOT, "node_modules/tsx/dist/loader.mjs");
const SERVER = resolve(REPO_ROOT, "test/mcp/support/bad-lines-server.ts");

let mcp: McpConnection;
/** The lines the server wrote on stdout that the bridge ignored, as `onIgnoredLine` heard them. */
const ignored: string[] = [];
beforeAll(async () => {
	const env = { BAD_LINES_ACCOUNT: "acct-correct-horse-battery" };
	// A timeout far beyond the test's own: only the line itself can end the call in time.
	mcp = await connectMcpServers(
		{ mcpServers: { bad: { command: process.execPath, args: ["--import", TSX, SERVER], env } } },
		{
			stderr: "ignore",
			timeoutMs: 600_000,
			onIgnoredLine: (server, line) => ignored.push(`${server}: ${line}`),
		},
	);
}, 30_000);
afterAll(async () => {
	await mcp?.close();
});

describe("a stdio server's answer that is no JSON-RPC message", () => {
	it("fails its call at once with an error naming the problem; the server goes on serving", async () => {
		const { agent, toolResults } = agentWith(mcp.tools(), [
			callReply("bad__nan_first"),
			callReply("bad__nan_last"),
			callReply("bad__not_jsonrpc"),
			callReply("bad__echo", { text: "still there" }),
			textReply("done"),
		]);
		await agent.prompt("go");
		const notJson =
			"MCP error -32700: the server answered with a line that is not valid JSON (a stdio server writes each message as one line of JSON)";
		expect(toolResults().map((r) => [r.isError, resultText(r)])).toEqual([
			[true, `MCP tool "nan_first" on server "bad" failed: ${notJson}`],
			[true, `MCP tool "nan_last" on server "bad" failed: ${notJson}`],
			[
				true,
				'MCP tool "not_jsonrpc" on server "bad" failed: MCP error -32700: the server answered with a line that is JSON but not a valid JSON-RPC message',
			],
			[false, "still there"],
		]);
		expect(mcp.servers.get("bad")?.connected).toBe(true);
	}, 20_000);

	it("log lines on stdout beside a call (text, or JSON that answers nothing) go to onIgnoredLine; the call succeeds", async () => {
		const { agent, toolResults } = agentWith(mcp.tools(), [
			callReply("bad__logs_then_answers"),
			textReply("ok"),
		]);
		await agent.prompt("go");
		expect(toolResults().map((r) => [r.isError, resultText(r)])).toEqual([[false, "done"]]);
		// The host hears of each, the greeting written before the server connected too; not of a blank line, and
		// not of a line that answered a call. The server's configured secrets are redacted.
		expect(ignored).toEqual([
			"bad: \x1b[2Jbad-lines server 1.0 starting",
			"bad: working on it for [redacted]",
			'bad: {"level":"info","msg":"still working","id":"log-1"}',
		]);
	}, 20_000);
});

describe("a JSON-RPC error from a stdio server that names no request (id null or left out)", () => {
	const tool = (name: string) => {
		const found = mcp.tools().find((t) => t.name === name);
		if (!found) throw new Error(`no tool ${name}`);
		return found;
	};
	const unnamed = (name: string) =>
		`MCP tool "${name}" on server "bad" failed: MCP error -32700: the server sent an error naming no request (id null or missing), taken as this call's: Parse error: Unexpected token`;

	it("fails the one call in flight at once, quoting the server's message", async () => {
		for (const name of ["null_id_error", "no_id_error"]) {
			const result = await executeAlone(tool(`bad__${name}`));
			expect([result.isError, resultText(result)]).toEqual([true, unnamed(name)]);
		}
		expect(mcp.servers.get("bad")?.connected).toBe(true);
	});

	it("with two calls in flight, fails the one left unanswered once the other's answer came", async () => {
		const [failed, held] = await Promise.all([
			executeAlone(tool("bad__null_id_error_beside_held")),
			executeAlone(tool("bad__held")),
		]);
		expect([held.isError, resultText(held)]).toEqual([undefined, "held, then answered"]);
		expect([failed.isError, resultText(failed)]).toEqual([true, unnamed("null_id_error_beside_held")]);
	});
});

describe("UnnamedErrors: whose an error naming no request is", () => {
	const parseError = { code: -32700, message: "Parse error" };
	const ids = (answers: { id: string | number }[]) => answers.map((a) => a.id);

	it("the one call waiting, or the one left once the others were answered", () => {
		const errors = new UnnamedErrors();
		expect(ids(errors.add(parseError, new Set([1])))).toEqual([1]);
		expect(ids(errors.add(parseError, new Set([2, 3, 4])))).toEqual([]);
		expect(ids(errors.answered(4))).toEqual([]);
		expect(ids(errors.answered(2))).toEqual([3]);
	});

	it("two errors among the same calls: each answer narrows both", () => {
		const errors = new UnnamedErrors();
		errors.add(parseError, new Set([1, 2, 3]));
		errors.add(parseError, new Set([1, 2, 3]));
		// Two of the three are the errors'; one more answer leaves each error two calls, none decided.
		expect(ids(errors.answered(3))).toEqual([]);
		errors.add(parseError, new Set([5, 6]));
		expect(ids(errors.answered(6))).toEqual([5]);
	});

	it("a call cancelled while an error might be its gives that error up; the others go on waiting", () => {
		const errors = new UnnamedErrors();
		errors.add(parseError, new Set([1, 2]));
		errors.forget(1);
		expect(ids(errors.answered(2))).toEqual([]);
	});
});

describe("answeredId: which waiting call a line that is no message answers", () => {
	const waiting = new Set<string | number>([3, "a-1"]);
	const text = (line: string) => answeredId(new InvalidLineError(line, undefined), waiting);
	const json = (line: string) => answeredId(new InvalidLineError(line, { value: JSON.parse(line) }), waiting);

	it("finds a response's id where encoders put it, and only a waiting one", () => {
		expect(text('{"jsonrpc":"2.0","id":3,"result":{"x":NaN}}')).toBe(3);
		expect(text('{ "jsonrpc": "2.0", "id": "a-1", "error": {"code": NaN} }')).toBe("a-1");
		expect(text('{"id":3,"result":NaN}')).toBe(3);
		expect(text('{"result":{"x":NaN},"jsonrpc":"2.0","id":3}')).toBe(3);
		expect(text('{"jsonrpc":"2.0","id":4,"result":NaN}')).toBeUndefined();
		expect(json('{"jsonrpc":"1.0","id":3,"result":{}}')).toBe(3);
		expect(json('{"id":"a-1"}')).toBe("a-1");
	});

	it("a log line, a nested id, a truncated answer or a server's request names no call", () => {
		expect(text("starting server on stdio")).toBeUndefined();
		expect(text('{"result":{"items":[{"id":3}')).toBeUndefined();
		expect(text('{"result":{"x":NaN,"item":{"jsonrpc":"2.0","id":3}}')).toBeUndefined();
		expect(text('{"method":"sampling/createMessage","params":NaN,"jsonrpc":"2.0","id":3}')).toBeUndefined();
		expect(json('{"level":"info","msg":"listening"}')).toBeUndefined();
		expect(json('{"jsonrpc":"2.0","id":3,"method":"roots/list","params":[]}')).toBeUndefined();
		expect(json("[3]")).toBeUndefined();
	});
});
