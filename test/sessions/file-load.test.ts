import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
	Agent,
	type AgentMessage,
	type Model,
	type ToolCall,
	type ToolResultMessage,
	type UserMessage,
} from "../../src/index.js";
import {
	CAPSTAN_VERSION,
	createSessionFile,
	defaultSessionDir,
	loadSession,
	openSessionFile,
	SESSION_FORMAT_VERSION,
	SessionFormatError,
} from "../../src/sessions/index.js";
import { scriptedModel, textReply } from "../../src/testing/index.js";
import { REPO_ROOT } from "../providers/support/fixtures.js";
import { assistant } from "../support/run.js";
import { assertPaired } from "../support/trace.js";
import { MODEL, tempCwd } from "./support.js";

const user = (text: string, timestamp = 1): UserMessage => ({ role: "user", content: text, timestamp });
const lines = (path: string) => readFileSync(path, "utf8").split("\n");

describe("session files", () => {
	it("make a missing folder level by level, and one that cannot be made fails instead of hanging", () => {
		const cwd = tempCwd();
		const file = createSessionFile({ cwd, dir: join(cwd, "a", "b", "c"), model: MODEL });
		expect(dirname(file.path)).toBe(join(cwd, "a", "b", "c"));
		// Node's recursive mkdir spins forever on this one (a folder /proc refuses with ENOENT).
		if (existsSync("/proc/self/stat"))
			expect(() => createSessionFile({ cwd, dir: "/proc/capstan-no-such/sessions", model: MODEL })).toThrow(
				/ENOENT|EACCES|EPERM/,
			);
	});

	it("start with a header line and get one line per message the moment it is appended", () => {
		const cwd = tempCwd();
		const file = createSessionFile({ cwd, model: MODEL, now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 6) });
		expect(file.path.startsWith(join(cwd, ".capstan", "sessions"))).toBe(true);
		expect(defaultSessionDir(cwd)).toBe(join(cwd, ".capstan", "sessions"));
		expect(basename(file.path)).toMatch(/^2026-01-02T03-04-05-006Z_[0-9a-f]{8}\.jsonl$/);
		const header = JSON.parse(lines(file.path)[0]!);
		expect(header).toEqual({
			type: "capstan-session",
			version: SESSION_FORMAT_VERSION,
			id: file.header.id,
			createdAt: "2026-01-02T03:04:05.006Z",
			cwd,
			model: MODEL,
			capstanVersion: CAPSTAN_VERSION,
		});
		file.append(user("hello"));
		// No close, no flush: the line is in the file as soon as append returns (a kill -9 keeps it).
		expect(lines(file.path)[1]).toBe(JSON.stringify({ type: "message", message: user("hello") }));
		expect(file.messageCount).toBe(1);
		expect(statSync(file.path).mode & 0o777).toBe(0o600);
		file.close();
		expect(() => file.append(user("late"))).toThrow(`Session ${file.path} is closed.`);
	});

	it("stores the model's provider, id and api only — never its headers or other options", () => {
		const cwd = tempCwd();
		const model = {
			...MODEL,
			baseUrl: "https://proxy.invalid",
			headers: { authorization: "Bearer sk-live-secret" },
			compat: { apiKeyEnv: "MY_SECRET_KEY" },
		} as unknown as Model;
		const file = createSessionFile({ cwd, model, dir: join(cwd, "elsewhere") });
		file.append(user("hi"));
		file.close();
		const text = readFileSync(file.path, "utf8");
		expect(text).not.toContain("sk-live-secret");
		expect(text).not.toContain("MY_SECRET_KEY");
		expect(text).not.toContain("proxy.invalid");
		expect(file.path.startsWith(join(cwd, "elsewhere"))).toBe(true);
	});

	it("CAPSTAN_VERSION is package.json's version", () => {
		const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
		expect(CAPSTAN_VERSION).toBe(pkg.version);
	});
});

describe("loadSession", () => {
	function sessionWith(messages: AgentMessage[]): string {
		const file = createSessionFile({ cwd: tempCwd(), model: MODEL });
		for (const message of messages) file.append(message);
		file.close();
		return file.path;
	}

	it("reads back exactly what was appended (SPEC M6), with no warnings", () => {
		const messages = [user("a"), user("b", 2)];
		const path = sessionWith(messages);
		const loaded = loadSession(path);
		expect(loaded.messages).toEqual(messages);
		expect(loaded.warnings).toEqual([]);
		expect(loaded.header.model).toEqual(MODEL);
	});

	it("drops a torn last line (a crash mid-write) with a warning and keeps every complete line", () => {
		const path = sessionWith([user("a"), user("b")]);
		appendFileSync(path, '{"type":"message","message":{"role":"user","con');
		const loaded = loadSession(path);
		expect(loaded.messages).toEqual([user("a"), user("b")]);
		expect(loaded.warnings).toEqual([
			"line 4: incomplete last line dropped (the session was cut off mid-write)",
		]);
	});

	it("keeps a complete last line that lost only its newline, and skips a corrupt middle line with a warning", () => {
		const path = sessionWith([user("a")]);
		appendFileSync(path, `garbage\n${JSON.stringify({ type: "message", message: user("c") })}`);
		const loaded = loadSession(path);
		expect(loaded.messages).toEqual([user("a"), user("c")]);
		expect(loaded.warnings).toEqual(["line 3: not valid JSON, skipped"]);
	});

	it("skips entry types it does not know (a later capstan's) and applies revisions", () => {
		const path = sessionWith([user("a"), user("b")]);
		appendFileSync(path, `${JSON.stringify({ type: "title", title: "later feature" })}\n`);
		appendFileSync(path, `${JSON.stringify({ type: "revision", index: 0, message: user("A") })}\n`);
		appendFileSync(path, `${JSON.stringify({ type: "revision", index: 9, message: user("?") })}\n`);
		const loaded = loadSession(path);
		expect(loaded.messages).toEqual([user("A"), user("b")]);
		expect(loaded.warnings).toEqual(["line 6: revision of message 9 which the file does not have, skipped"]);
	});

	it("skips, with a warning, a revision or message entry whose message is null, an array, or at no whole index", () => {
		const path = sessionWith([user("a")]);
		for (const entry of [
			{ type: "revision", index: 0, message: null },
			{ type: "revision", index: 0.5, message: user("half") },
			{ type: "message", message: ["not", "a", "message"] },
		])
			appendFileSync(path, `${JSON.stringify(entry)}\n`);
		const loaded = loadSession(path);
		expect(loaded.messages).toEqual([user("a")]);
		expect(loaded.warnings).toEqual([
			"line 3: revision entry without a message, skipped",
			"line 4: revision of message 0.5 which the file does not have, skipped",
			"line 5: message entry without a message, skipped",
		]);
	});

	it("reads a file an editor saved with a byte order mark, and appends to it", () => {
		const path = sessionWith([user("a")]);
		writeFileSync(path, `\uFEFF${readFileSync(path, "utf8")}`);
		expect(loadSession(path).messages).toEqual([user("a")]);
		const file = openSessionFile(path);
		file.append(user("b"));
		file.close();
		const loaded = loadSession(path);
		expect(loaded.messages).toEqual([user("a"), user("b")]);
		expect(loaded.warnings).toEqual([]);
	});

	it("refuses a format from a newer capstan, a file that is not a session, and an empty file, clearly", () => {
		const path = sessionWith([user("a")]);
		const [header, ...rest] = lines(path);
		const newer = { ...JSON.parse(header!), version: SESSION_FORMAT_VERSION + 1, capstanVersion: "9.0.0" };
		writeFileSync(path, [JSON.stringify(newer), ...rest].join("\n"));
		expect(() => loadSession(path)).toThrow(SessionFormatError);
		expect(() => loadSession(path)).toThrow(
			`Cannot read session ${path}: it was written by a newer capstan (9.0.0, format 2); this capstan reads formats up to 1. Upgrade capstan to resume it.`,
		);
		writeFileSync(path, '{"role":"user"}\n');
		expect(() => loadSession(path)).toThrow("the first line is not a capstan session header.");
		writeFileSync(path, "");
		expect(() => loadSession(path)).toThrow("the file is empty.");
		writeFileSync(path, `${JSON.stringify({ ...newer, version: 1, model: { provider: "x" } })}\n`);
		expect(() => loadSession(path)).toThrow("the header names no model");
	});

	it.skipIf(process.platform === "win32")(
		"refuses a socket and a device by what they are; a folder and a missing path fail with their system error",
		async () => {
			const dir = tempCwd();
			const socket = join(dir, "s.jsonl");
			const server = createServer();
			await new Promise<void>((done) => server.listen(socket, done));
			try {
				expect(() => loadSession(socket)).toThrow(
					`Cannot read session ${socket}: not a regular file (a socket).`,
				);
			} finally {
				await new Promise((done) => server.close(done));
			}
			expect(() => loadSession("/dev/null")).toThrow("not a regular file (a device).");
			expect(() => loadSession(dir)).toThrow(expect.objectContaining({ code: "EISDIR" }));
			expect(() => loadSession(join(dir, "none.jsonl"))).toThrow(expect.objectContaining({ code: "ENOENT" }));
		},
	);

	it("shows a crafted file's control characters as escapes, not as terminal commands, in its errors and warnings", () => {
		const path = sessionWith([user("a")]);
		const [header, ...rest] = lines(path);
		// ESC ] 52 writes the clipboard, ESC [ 2 J clears the screen, U+009B is a one-byte CSI, U+202E flips text.
		const evil = "\u001b]52;c;aGk=\u0007\u001b[2J\u009b31m\u202e";
		const newer = { ...JSON.parse(header!), version: SESSION_FORMAT_VERSION + 1, capstanVersion: `9${evil}` };
		writeFileSync(path, [JSON.stringify(newer), ...rest].join("\n"));
		const message = (() => {
			try {
				loadSession(path);
			} catch (error) {
				return (error as Error).message;
			}
		})();
		expect(message).toBe(
			`Cannot read session ${path}: it was written by a newer capstan (9\\u001b]52;c;aGk=\\u0007\\u001b[2J\\u009b31m\\u202e, format 2); this capstan reads formats up to 1. Upgrade capstan to resume it.`,
		);
		writeFileSync(
			path,
			`${[header, JSON.stringify({ type: "revision", index: evil, message: user("?") })].join("\n")}\n`,
		);
		const { warnings } = loadSession(path);
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).not.toMatch(/[\p{Cc}\p{Cf}]/u);
		expect(warnings[0]).toContain("\\u001b]52");
		// A file name is shown the same way: a checked-out repository can hold one.
		const named = join(dirname(path), `x${evil}.jsonl`);
		writeFileSync(named, "not a session\n");
		expect(() => loadSession(named)).toThrow(
			`Cannot read session ${join(dirname(path), "x\\u001b]52;c;aGk=\\u0007\\u001b[2J\\u009b31m\\u202e.jsonl")}: the first line`,
		);
	});
});

describe("openSessionFile", () => {
	it("cuts a torn tail before appending, so the next entry is a line of its own", () => {
		const file = createSessionFile({ cwd: tempCwd(), model: MODEL });
		file.append(user("a"));
		file.close();
		appendFileSync(file.path, '{"type":"mess');
		const reopened = openSessionFile(file.path);
		expect(reopened.messageCount).toBe(1);
		expect(reopened.header).toEqual(file.header);
		reopened.append(user("b"));
		reopened.close();
		expect(loadSession(file.path)).toMatchObject({ messages: [user("a"), user("b")], warnings: [] });
	});

	it("leaves a file that ends in a whole line untouched: no cut that could take a line another writer just added", () => {
		const file = createSessionFile({ cwd: tempCwd(), model: MODEL });
		file.append(user("a"));
		file.close();
		utimesSync(file.path, 1_000, 1_000);
		openSessionFile(file.path).close();
		expect(statSync(file.path).mtimeMs).toBe(1_000_000); // not even truncated to its own length
	});

	it("counts the file's bytes, not its decoded text, where a corrupt line holds invalid UTF-8", () => {
		const file = createSessionFile({ cwd: tempCwd(), model: MODEL });
		file.append(user("a"));
		file.close();
		// A line torn inside "é" by an older capstan's short write, with the next entry written after it.
		const torn = Buffer.from(JSON.stringify({ type: "message", message: user("café") }));
		appendFileSync(file.path, torn.subarray(0, torn.indexOf(0xc3) + 1));
		appendFileSync(file.path, `${JSON.stringify({ type: "message", message: user("b") })}\n`);
		const size = statSync(file.path).size;
		const reopened = openSessionFile(file.path);
		// Measured in decoded text, the stray byte (one U+FFFD, three bytes) grew the file by NULs.
		expect(statSync(file.path).size).toBe(size);
		reopened.append(user("c"));
		reopened.close();
		expect(loadSession(file.path)).toMatchObject({
			messages: [user("a"), user("c")],
			warnings: ["line 3: not valid JSON, skipped"],
		});
	});

	it("adds the missing newline after a complete last line before appending", () => {
		const file = createSessionFile({ cwd: tempCwd(), model: MODEL });
		file.close();
		appendFileSync(file.path, JSON.stringify({ type: "message", message: user("a") }));
		const reopened = openSessionFile(file.path);
		reopened.append(user("b"));
		reopened.close();
		expect(loadSession(file.path)).toMatchObject({ messages: [user("a"), user("b")], warnings: [] });
	});

	it("closes the file and says why when the missing newline cannot be written (the file size limit)", {
		timeout: 30_000,
	}, () => {
		const file = createSessionFile({ cwd: tempCwd(), model: MODEL });
		file.close();
		// A complete last line without its newline that fills the file to the child's limit exactly.
		const limitKiB = 64;
		const line = (text: string) => JSON.stringify({ type: "message", message: user(text) });
		const room = limitKiB * 1024 - statSync(file.path).size - Buffer.byteLength(line(""));
		appendFileSync(file.path, line("x".repeat(room)));
		const before = readFileSync(file.path);
		expect(before.length).toBe(limitKiB * 1024);
		const child = spawnSync(
			"bash",
			[
				"-c",
				`ulimit -f ${limitKiB} && exec "$0" --import tsx test/sessions/open-child.ts "$1"`,
				process.execPath,
				file.path,
			],
			{ cwd: REPO_ROOT, encoding: "utf8" },
		);
		expect(child.stderr).toBe("");
		const report = JSON.parse(child.stdout) as { error?: string; openDescriptors: number };
		expect(report.openDescriptors).toBe(0);
		expect(report.error).toBe(
			`Cannot open session ${file.path} to append to it: its last line has no newline, and writing one failed (EFBIG: file too large, write). The file is unchanged.`,
		);
		expect(readFileSync(file.path)).toEqual(before);
	});
});

describe("loadSession after a damaged middle line (SPEC I1, I5)", () => {
	const call = (id: string): ToolCall => ({
		type: "toolCall",
		id,
		name: "read_file",
		arguments: { path: id },
	});
	const reply = (...ids: string[]) => assistant(ids.map(call), ids.length > 0 ? "toolUse" : "stop");
	const result = (id: string): ToolResultMessage => ({
		role: "toolResult",
		toolCallId: id,
		toolName: "read_file",
		content: [{ type: "text", text: `contents of ${id}` }],
		isError: false,
		timestamp: 1,
	});
	const lostResult = (id: string) => ({
		role: "toolResult",
		toolCallId: id,
		toolName: "read_file",
		content: [
			{ type: "text", text: expect.stringMatching(/^Result lost: .+whether the tool ran is not known/) },
		],
		details: { synthetic: true, reason: "lost", executed: "unknown" },
		isError: true,
		timestamp: 0,
	});

	/** A session file of `messages` whose line `damaged` (1 is the header) a disk fault turned to garbage. */
	function damagedSession(messages: AgentMessage[], damaged: number): string {
		const file = createSessionFile({ cwd: tempCwd(), model: MODEL });
		for (const message of messages) file.append(message);
		file.close();
		const text = lines(file.path);
		text[damaged - 1] = `\u0000\u0000${text[damaged - 1]?.slice(7)}`;
		writeFileSync(file.path, text.join("\n"));
		return file.path;
	}

	/** The transcript goes to a model as it is: a new Agent takes it and prompts, and the request is paired. */
	async function replay(messages: AgentMessage[]) {
		const scripted = scriptedModel([textReply("next")]);
		const agent = new Agent({ model: scripted.model, streamFn: scripted.stream, messages });
		await agent.prompt("go on");
		assertPaired(scripted.calls[0]!.context.messages);
	}

	it("drops the results of a reply whose line was damaged: no result without its call", async () => {
		const path = damagedSession(
			[user("a"), reply("call_1", "call_2"), result("call_1"), result("call_2"), reply()],
			3,
		);
		const loaded = loadSession(path);
		expect(loaded.messages).toEqual([user("a"), reply()]);
		expect(loaded.warnings).toEqual([
			"line 3: not valid JSON, skipped",
			'line 4: result of tool call "call_1" dropped: no call before it awaits it (a provider refuses a result without its call)',
			'line 5: result of tool call "call_2" dropped: no call before it awaits it (a provider refuses a result without its call)',
		]);
		expect(loaded.repaired).toBe(true);
		await replay(loaded.messages);
	});

	it("gives a call whose result line was damaged a placeholder, before the messages after its batch", async () => {
		const path = damagedSession(
			[user("a"), reply("call_1", "call_2"), result("call_1"), result("call_2"), reply(), user("b"), reply()],
			5,
		);
		const loaded = loadSession(path);
		expect(loaded.messages).toEqual([
			user("a"),
			reply("call_1", "call_2"),
			result("call_1"),
			lostResult("call_2"),
			reply(),
			user("b"),
			reply(),
		]);
		expect(loaded.warnings).toEqual([
			"line 5: not valid JSON, skipped",
			'line 3: tool call "call_2" of "read_file" has no result in the file; a placeholder result says it was lost',
		]);
		await replay(loaded.messages);
	});

	it("does not run again a last batch whose result line was damaged: its result was written, then lost", () => {
		const path = damagedSession(
			[user("a"), reply("call_1", "call_2"), result("call_1"), result("call_2")],
			4,
		);
		const loaded = loadSession(path);
		// The placeholder ends the batch: a batch's results come in any order.
		expect(loaded.messages).toEqual([
			user("a"),
			reply("call_1", "call_2"),
			result("call_2"),
			lostResult("call_1"),
		]);
		assertPaired(loaded.messages);
	});

	it("leaves a last batch with no damaged line after it to run on continue (SPEC L6)", () => {
		const path = damagedSession([user("a"), user("b"), reply("call_1")], 2);
		const loaded = loadSession(path);
		expect(loaded.messages).toEqual([user("b"), reply("call_1")]);
		expect(loaded.warnings).toEqual(["line 2: not valid JSON, skipped"]);
		expect(loaded.repaired).toBe(false);
	});

	it("skips a message of a known role without the shape the loop reads, as a damaged line", async () => {
		const file = createSessionFile({ cwd: tempCwd(), model: MODEL });
		for (const message of [user("a"), reply("call_1"), result("call_1"), reply()]) file.append(message);
		file.close();
		const text = lines(file.path);
		// Valid JSON, but a reply without its content array: resuming it used to throw a TypeError.
		text[2] = JSON.stringify({ type: "message", message: { role: "assistant" } });
		text[3] = JSON.stringify({
			type: "message",
			message: { role: "toolResult", toolCallId: 7, content: [] },
		});
		writeFileSync(file.path, text.join("\n"));
		const loaded = loadSession(file.path);
		expect(loaded.messages).toEqual([user("a"), reply()]);
		expect(loaded.warnings).toEqual([
			"line 3: an assistant message without its content array, skipped",
			"line 4: a toolResult message without its toolCallId, skipped",
		]);
		await replay(loaded.messages);
	});

	it("openSessionFile refuses a repaired file: entries appended to it would not continue the transcript", () => {
		const path = damagedSession([user("a"), reply("call_1"), result("call_1"), reply()], 3);
		const before = readFileSync(path);
		expect(() => openSessionFile(path)).toThrow(SessionFormatError);
		expect(() => openSessionFile(path)).toThrow(/unpaired.+record the conversation in a new session file/);
		expect(readFileSync(path)).toEqual(before);
	});
});
