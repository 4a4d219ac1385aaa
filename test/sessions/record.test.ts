import { mkdirSync, readFileSync, renameSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { Agent, type AgentMessage, type AgentTool, type ToolResultMessage } from "../../src/index.js";
import {
	createSessionFile,
	latestSession,
	listSessions,
	loadSession,
	openSessionFile,
	recordSession,
	type SessionFile,
} from "../../src/sessions/index.js";
import { type ScriptedReply, scriptedModel, textReply, toolReply } from "../../src/testing/index.js";
import { createWorkspaceTools, type ShellDetails } from "../../src/workspace/index.js";
import { redirectDescriptor } from "../support/descriptors.js";
import { assistant, user } from "../support/run.js";
import { assertPaired } from "../support/trace.js";
import { MODEL, tempCwd } from "./support.js";

function agentIn(cwd: string, script: ScriptedReply[], options: { messages?: AgentMessage[] } = {}) {
	const scripted = scriptedModel(script);
	const agent = new Agent({
		model: scripted.model,
		streamFn: scripted.stream,
		tools: createWorkspaceTools({ cwd }),
		...options,
	});
	return { agent, scripted };
}

const roles = (messages: readonly AgentMessage[]) => messages.map((m) => (m as { role: string }).role);

describe("recordSession", () => {
	it("a write that fails (a full disk) ends the recording once: the file keeps what came before, with no gap", async () => {
		const cwd = tempCwd();
		const { agent } = agentIn(cwd, [textReply("one"), textReply("two"), textReply("three")]);
		const file = createSessionFile({ cwd, model: MODEL });
		const errors: unknown[] = [];
		recordSession(agent, file, { onError: (error) => errors.push(error) });
		await agent.prompt("first");
		redirectDescriptor(file.path, "/dev/full", "w");
		await agent.prompt("second");
		// The disk has room again: still nothing is written, or the file would skip the lost message.
		redirectDescriptor("/dev/full", file.path, "a");
		await agent.prompt("third");
		expect(errors).toHaveLength(1);
		expect(String(errors[0])).toContain(`Session ${file.path} can no longer be written (ENOSPC`);
		expect(String(errors[0])).toContain("it holds the conversation's first 2 messages");
		expect(agent.state.messages).toHaveLength(6);
		const loaded = loadSession(file.path);
		expect(loaded.warnings).toEqual([]);
		expect(loaded.messages).toEqual(agent.state.messages.slice(0, 2));
		expect(() => file.append(user("later"))).toThrow("can no longer be written");
		// Without onError the Agent's own subscriber-error report gets it, once.
		const reported: unknown[] = [];
		const second = agentIn(cwd, [textReply("a"), textReply("b")]);
		const quiet = new Agent({
			model: second.agent.state.model,
			streamFn: second.scripted.stream,
			onSubscriberError: (error) => reported.push(error),
		});
		const other = createSessionFile({ cwd, model: MODEL });
		recordSession(quiet, other);
		redirectDescriptor(other.path, "/dev/full", "w");
		await quiet.prompt("x");
		await quiet.prompt("y");
		expect(reported).toHaveLength(1);
	});

	it("the file reads back as agent.state.messages: prompt, tool batch, steering, follow-up", async () => {
		const cwd = tempCwd();
		writeFileSync(join(cwd, "notes.txt"), "remember the milk\n");
		const { agent } = agentIn(cwd, [
			{
				content: [
					{ type: "toolCall", name: "read_file", arguments: { path: "notes.txt" } },
					{ type: "toolCall", name: "read_file", arguments: { path: "../escape.txt" } },
				],
			},
			toolReply("shell", { command: "sleep 0.2; echo shell-done" }),
			textReply("steered"),
			textReply("followed up"),
		]);
		const file = createSessionFile({ cwd, model: MODEL });
		recordSession(agent, file);
		agent.subscribe((event) => {
			if (event.type === "tool_execution_start" && event.toolName === "shell") {
				agent.steer("while you run: also check the eggs");
				agent.followUp("and then the bread");
			}
		});
		await agent.prompt("what do my notes say?");
		const loaded = loadSession(file.path);
		expect(loaded.warnings).toEqual([]);
		expect(loaded.messages).toEqual(agent.state.messages);
		expect(roles(loaded.messages)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"toolResult",
			"assistant",
			"toolResult",
			"user",
			"assistant",
			"user",
			"assistant",
		]);
		assertPaired(loaded.messages);
		// SPEC T10: the shell is not interruptible, so the steer waited and the command kept its real result.
		const shell = loaded.messages[5] as ToolResultMessage<ShellDetails>;
		expect(shell.isError).toBe(false);
		expect(shell.details?.exitCode).toBe(0);
		expect((loaded.messages[3] as ToolResultMessage).isError).toBe(true); // the escape, refused
	});

	it("SPEC T4: a reply whose arguments beforeToolCall revised is revised in the file too", async () => {
		const cwd = tempCwd();
		writeFileSync(join(cwd, "safe.txt"), "safe\n");
		const scripted = scriptedModel([toolReply("read_file", { path: "other.txt" }), textReply("done")]);
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: createWorkspaceTools({ cwd }),
			beforeToolCall: () => ({ args: { path: "safe.txt" } }),
		});
		const file = createSessionFile({ cwd, model: MODEL });
		recordSession(agent, file);
		await agent.prompt("read");
		const loaded = loadSession(file.path);
		expect(loaded.messages).toEqual(agent.state.messages);
		const reply = loaded.messages[1] as { content: { arguments?: unknown }[] };
		expect(reply.content[0]?.arguments).toEqual({ path: "safe.txt" });
	});

	it("SPEC L6, T4: a resumed batch that beforeToolCall revises is revised in the file too", async () => {
		const cwd = tempCwd();
		writeFileSync(join(cwd, "safe.txt"), "safe\n");
		// A session that ended between a tool call and its result.
		const crashed = createSessionFile({ cwd, model: MODEL });
		crashed.append(user("read"));
		crashed.append(
			assistant(
				[{ type: "toolCall", id: "c1", name: "read_file", arguments: { path: "other.txt" } }],
				"toolUse",
			),
		);
		crashed.close();
		const loaded = loadSession(crashed.path).messages;
		const scripted = scriptedModel([textReply("done")]);
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: createWorkspaceTools({ cwd }),
			messages: loaded,
			beforeToolCall: () => ({ args: { path: "safe.txt" } }),
		});
		const file = openSessionFile(crashed.path);
		recordSession(agent, file);
		await agent.continue();
		expect(loadSession(file.path).messages).toEqual(agent.state.messages);
		const reply = agent.state.messages[1] as { content: { arguments?: unknown }[] };
		expect(reply.content[0]?.arguments).toEqual({ path: "safe.txt" });
	});

	it("writes first the messages the agent already has, then stops writing after unsubscribe", async () => {
		const cwd = tempCwd();
		const earlier: AgentMessage[] = [{ role: "user", content: "earlier", timestamp: 1 }];
		const { agent } = agentIn(cwd, [textReply("one"), textReply("two")], { messages: earlier });
		const file = createSessionFile({ cwd, model: MODEL });
		const stop = recordSession(agent, file);
		await agent.prompt("next");
		stop();
		await agent.prompt("unrecorded");
		expect(loadSession(file.path).messages).toEqual(agent.state.messages.slice(0, 3));
	});

	it("SPEC Q1: after reset() only the new conversation reaches the new file, and the old file keeps the old one", async () => {
		const cwd = tempCwd();
		// Runs until its signal fires, so reset() cuts the run short inside the tool batch.
		const hang: AgentTool = {
			name: "hang",
			label: "hang",
			description: "waits until aborted",
			parameters: Type.Object({}),
			execute: (_id, _args, signal) =>
				new Promise((_, reject) => signal?.addEventListener("abort", () => reject(new Error("aborted")))),
		};
		const scripted = scriptedModel([toolReply("hang"), textReply("fresh")]);
		const agent = new Agent({ model: scripted.model, streamFn: scripted.stream, tools: [hang] });
		const old = createSessionFile({ cwd, model: MODEL });
		recordSession(agent, old);
		let fresh: SessionFile | undefined;
		let resetDone: Promise<void> | undefined;
		agent.subscribe((event) => {
			if (event.type !== "tool_execution_start") return;
			// Not awaited: the new recorder is there while the aborted run writes its closing result.
			resetDone = agent.reset();
			fresh = createSessionFile({ cwd, model: MODEL });
			recordSession(agent, fresh);
		});
		await agent.prompt("start");
		await resetDone;
		expect(loadSession(fresh!.path).messages).toEqual([]);
		await agent.prompt("again");
		const loaded = loadSession(fresh!.path).messages;
		expect(loaded).toEqual(agent.state.messages);
		assertPaired(loaded);
		expect(roles(loadSession(old.path).messages)).toEqual(["user", "assistant"]);
	});

	it("replaceMessages() ends the recording: the file keeps the conversation it holds", async () => {
		const cwd = tempCwd();
		const { agent } = agentIn(cwd, [textReply("one"), textReply("two")]);
		const file = createSessionFile({ cwd, model: MODEL });
		recordSession(agent, file);
		await agent.prompt("first");
		const before = loadSession(file.path).messages;
		agent.replaceMessages([user("another conversation")]);
		await agent.prompt("second");
		expect(loadSession(file.path).messages).toEqual(before);
	});

	it("replaceMessages() with an edited transcript as long as the file's ends the recording too", async () => {
		const cwd = tempCwd();
		const { agent } = agentIn(cwd, [textReply("one"), textReply("two"), textReply("three")]);
		const file = createSessionFile({ cwd, model: MODEL });
		recordSession(agent, file);
		await agent.prompt("first");
		// The same messages, copied: the transcript still continues the file, and the recording goes on.
		agent.replaceMessages(structuredClone(agent.state.messages));
		await agent.prompt("second");
		const before = loadSession(file.path).messages;
		expect(before).toEqual(agent.state.messages);
		// Its first message edited, its last the same: the next messages would follow another history.
		agent.replaceMessages([user("edited"), ...agent.state.messages.slice(1)]);
		await agent.prompt("third");
		expect(loadSession(file.path).messages).toEqual(before);
	});

	it("two recorders of one file write each message once", async () => {
		const cwd = tempCwd();
		const { agent } = agentIn(cwd, [textReply("one")]);
		const file = createSessionFile({ cwd, model: MODEL });
		recordSession(agent, file);
		recordSession(agent, file);
		await agent.prompt("hi");
		expect(loadSession(file.path).messages).toEqual(agent.state.messages);
	});
});

describe("resuming a session (SPEC L6, Q4)", () => {
	it("a session that ended between a tool call and its result runs that batch first, then goes on", async () => {
		const cwd = tempCwd();
		writeFileSync(join(cwd, "a.txt"), "alpha\n");
		// A real reply with its tool call; the run is cut off as the tool starts, like a crash would.
		const first = agentIn(cwd, [toolReply("read_file", { path: "a.txt" })]);
		first.agent.subscribe((event) => {
			if (event.type === "tool_execution_start") first.agent.abort("crash");
		});
		await first.agent.prompt("read a.txt");
		// Only the messages up to the reply made it into the file.
		const crashed = createSessionFile({ cwd, model: MODEL });
		for (const message of first.agent.state.messages.slice(0, 2)) crashed.append(message);
		crashed.close();

		const loaded = loadSession(crashed.path);
		expect(roles(loaded.messages)).toEqual(["user", "assistant"]);
		const { agent, scripted } = agentIn(cwd, [textReply("it says alpha")], { messages: loaded.messages });
		recordSession(agent, openSessionFile(crashed.path));
		await agent.continue();
		const after = loadSession(crashed.path).messages;
		expect(after).toEqual(agent.state.messages);
		expect(roles(after)).toEqual(["user", "assistant", "toolResult", "assistant"]);
		assertPaired(after);
		expect((after[2] as ToolResultMessage).content).toEqual([{ type: "text", text: "alpha" }]);
		// The model saw the real result of the resumed batch.
		expect(roles(scripted.calls[0]!.context.messages)).toEqual(["user", "assistant", "toolResult"]);
	});
	it("refuses to record an agent into a file that holds another conversation, and leaves the file as it is", async () => {
		const cwd = tempCwd();
		const first = agentIn(cwd, [textReply("one")]);
		const file = createSessionFile({ cwd, model: MODEL });
		recordSession(first.agent, file);
		await first.agent.prompt("first conversation");
		file.close();
		const before = readFileSync(file.path, "utf8");
		const cases: { name: string; messages: AgentMessage[]; problem: string }[] = [
			{
				name: "longer, its first messages another conversation's",
				messages: [user("other"), assistant([{ type: "text", text: "reply" }]), user("more")],
				problem: "its message 0 is not the agent's message 0",
			},
			{
				name: "as long, another conversation",
				messages: [user("other"), assistant([{ type: "text", text: "reply" }])],
				problem: "its message 0 is not the agent's message 0",
			},
			{
				name: "this conversation with its first message edited, ending the same way",
				messages: [user("edited"), first.agent.state.messages[1]!],
				problem: "its message 0 is not the agent's message 0",
			},
			{
				name: "this conversation edited one character, as a copy",
				messages: [
					{ ...first.agent.state.messages[0]!, content: "first conversatioN" } as AgentMessage,
					structuredClone(first.agent.state.messages[1]!),
					user("more"),
				],
				problem: "its message 0 is not the agent's message 0",
			},
			{
				name: "shorter than the file",
				messages: [user("other")],
				problem: "it holds 2 messages, the agent 1",
			},
		];
		for (const { name, messages, problem } of cases) {
			const other = agentIn(cwd, [textReply("two")], { messages });
			const opened = openSessionFile(file.path);
			const errors: unknown[] = [];
			recordSession(other.agent, opened, { onError: (error) => errors.push(error) });
			await other.agent.prompt("next");
			opened.close();
			expect(errors, name).toHaveLength(1);
			expect(String(errors[0]), name).toBe(
				`Error: Cannot record into session ${file.path}: it does not hold this agent's conversation (${problem}). The file is left as it is; record the agent into a new session file.`,
			);
			expect(readFileSync(file.path, "utf8"), name).toBe(before);
		}
		// Without onError, recordSession throws it.
		const other = agentIn(cwd, [textReply("two")], { messages: [user("other"), user("more")] });
		const opened = openSessionFile(file.path);
		expect(() => recordSession(other.agent, opened)).toThrow("it does not hold this agent's conversation");
		opened.close();
		// The agent that holds the file's conversation, loaded back, goes on in it.
		const resumed = agentIn(cwd, [textReply("two")], { messages: loadSession(file.path).messages });
		const again = openSessionFile(file.path);
		recordSession(resumed.agent, again);
		await resumed.agent.prompt("next");
		again.close();
		expect(loadSession(file.path).messages).toEqual(resumed.agent.state.messages);
	});
});

describe("listSessions and latestSession", () => {
	it("lists a folder's sessions most recently written first, with message counts and a preview", async () => {
		const cwd = tempCwd();
		const dir = join(cwd, "sessions");
		const old = createSessionFile({ cwd, dir, model: MODEL, now: () => 1000 });
		old.append({
			role: "user",
			content: [{ type: "text", text: "first   question\nwith lines" }],
			timestamp: 1,
		});
		old.close();
		const recent = createSessionFile({ cwd, dir, model: MODEL, now: () => 2000 });
		recent.append({ role: "user", content: "x".repeat(200), timestamp: 2 });
		recent.append({ role: "user", content: "second", timestamp: 3 });
		recent.close();
		writeFileSync(join(dir, "broken.jsonl"), "not a session\n");
		utimesSync(join(dir, "broken.jsonl"), 1, 1); // older than both sessions
		writeFileSync(join(dir, "notes.txt"), "ignored\n");
		const list = listSessions(dir);
		expect(list.map((s) => s.path)).toEqual([recent.path, old.path]);
		expect(list[1]).toMatchObject({
			messageCount: 1,
			preview: "first question with lines",
			header: old.header,
		});
		expect(list[0]?.preview).toBe(`${"x".repeat(79)}…`);
		expect(latestSession(dir)?.path).toBe(recent.path);
		expect(listSessions(join(cwd, "missing"))).toEqual([]);
		expect(latestSession(join(cwd, "missing"))).toBeUndefined();
	});

	it("sessions written in the same millisecond: latestSession is the first listSessions lists, every time", () => {
		const cwd = tempCwd();
		const dir = join(cwd, "sessions");
		// Names that do not sort as their creation times do (files copied or renamed by hand).
		const write = (name: string, createdAt: number) => {
			const session = createSessionFile({ cwd, dir, model: MODEL, now: () => createdAt });
			session.append({ role: "user", content: name, timestamp: createdAt });
			session.close();
			const path = join(dir, name);
			renameSync(session.path, path);
			utimesSync(path, 5000, 5000);
			return path;
		};
		const a = write("a.jsonl", 2000);
		const b = write("b.jsonl", 1000);
		const c = write("c.jsonl", 1000);
		const order = [c, b, a];
		expect(listSessions(dir).map((s) => s.path)).toEqual(order);
		expect(latestSession(dir)?.path).toBe(order[0]);
	});

	it("latestSession passes over a folder named *.jsonl and a dangling link, newer though they are", () => {
		const cwd = tempCwd();
		const dir = join(cwd, "sessions");
		const session = createSessionFile({ cwd, dir, model: MODEL });
		session.append({ role: "user", content: "the one", timestamp: 1 });
		session.close();
		utimesSync(session.path, 1000, 1000);
		mkdirSync(join(dir, "zz-folder.jsonl"));
		symlinkSync(join(dir, "gone"), join(dir, "zz-dangling.jsonl"));
		expect(latestSession(dir)?.path).toBe(session.path);
		expect(listSessions(dir).map((s) => s.path)).toEqual([session.path]);
	});

	it("a preview holds no control characters and no half of a surrogate pair", () => {
		const cwd = tempCwd();
		const dir = join(cwd, "sessions");
		const escapes = createSessionFile({ cwd, dir, model: MODEL, now: () => 1000 });
		escapes.append({
			role: "user",
			content: "\u001b[2J\u001b]0;title\u0007clear\u009bme\u0000",
			timestamp: 1,
		});
		escapes.close();
		const emoji = createSessionFile({ cwd, dir, model: MODEL, now: () => 2000 });
		emoji.append({ role: "user", content: "😀".repeat(100), timestamp: 2 });
		emoji.close();
		const previews = Object.fromEntries(listSessions(dir).map((s) => [s.path, s.preview]));
		expect(previews[escapes.path]).toBe("[2J ]0;title clear me");
		expect(previews[emoji.path]).toBe(`${"😀".repeat(39)}…`);
	});

	it("latestSession says why the newest session cannot be read instead of picking an older one", () => {
		const cwd = tempCwd();
		const dir = join(cwd, "sessions");
		const old = createSessionFile({ cwd, dir, model: MODEL });
		old.append({ role: "user", content: "OLD conversation", timestamp: 1 });
		old.close();
		utimesSync(old.path, 1000, 1000);
		const newer = createSessionFile({ cwd, dir, model: MODEL });
		newer.append({ role: "user", content: "new", timestamp: 2 });
		newer.close();
		// The newest file is a later capstan's format.
		const [head, ...rest] = readFileSync(newer.path, "utf8").split("\n");
		const header = { ...JSON.parse(head as string), version: 999 };
		writeFileSync(newer.path, [JSON.stringify(header), ...rest].join("\n"));
		expect(() => latestSession(dir)).toThrow(/newer|version|upgrade/i);
		expect(listSessions(dir).map((s) => s.path)).toEqual([old.path]);
	});
});
