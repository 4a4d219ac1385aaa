/**
 * The command's decisions as tables, in-process: the demo script's reply per conversation, the approval
 * hook on a real Agent, settings validation, how a run's end reads and exits, and the trace's summaries.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import {
	ApprovalDesk,
	type ApprovalPolicy,
	askBeforeRunning,
	blockedWithoutYes,
	declinedByUser,
} from "../../src/cli/approval.js";
import { ConfigError, parseConfig } from "../../src/cli/config.js";
import { DEMO_TEXT, demoReply } from "../../src/cli/demo.js";
import type { ApprovalRequest } from "../../src/cli/host.js";
import { catalogModel, keyFor, modelSpec, resolveModel, switchModel } from "../../src/cli/models.js";
import { EXIT, exitCodeFor, explainEnd } from "../../src/cli/outcome.js";
import { summarizeArgs, traceRenderer, usageLine } from "../../src/cli/trace.js";
import type { AssistantMessage, Message, ToolResultMessage } from "../../src/core/messages.js";
import type { AgentEvent } from "../../src/protocol/events.js";
import { openaiCompatible } from "../../src/providers/openai-completions/compatible.js";
import { scriptedModel, textReply, toolReply } from "../../src/testing/scripted-model.js";
import type { AgentTool } from "../../src/tools/types.js";

const user = (content: string): Message => ({ role: "user", content, timestamp: 0 });
const reply = (text = ""): AssistantMessage => ({
	role: "assistant",
	content: text ? [{ type: "text", text }] : [],
	api: "scripted",
	provider: "scripted",
	model: "m",
	usage: {
		input: 10,
		output: 2,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 12,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.0015 },
	},
	stopReason: "stop",
	timestamp: 0,
});
const result = (toolName: string): ToolResultMessage => ({
	role: "toolResult",
	toolCallId: "c",
	toolName,
	content: [{ type: "text", text: "ok" }],
	isError: false,
	timestamp: 0,
});
const calls = (r: ReturnType<typeof demoReply>): string[] =>
	(r.content ?? []).map((block) => (block.type === "toolCall" ? block.name : block.type));

describe("the demo script reacts to the transcript", () => {
	it.each<[string, Message[], string[]]>([
		[
			"first prompt: thinking, text, two shared reads",
			[user(DEMO_TEXT.prompt)],
			["thinking", "text", "read_file", "list_dir"],
		],
		[
			"after the reads: the exclusive write, then a read of it",
			[user("p"), reply(), result("list_dir")],
			["text", "write_file", "read_file"],
		],
		[
			"after the write: the long tool",
			[user("p"), reply(), result("x"), reply(), result("x")],
			["text", "watch_build"],
		],
		[
			"the long tool ran to the end (nobody steered)",
			[user("p"), reply(), reply(), reply(), result("watch_build")],
			["text"],
		],
		[
			"a steer after the long tool: thinking and an answer",
			[user("p"), reply(), reply(), reply(), result("watch_build"), user("stop")],
			["thinking", "text"],
		],
		[
			"the follow-up: the summary",
			[user("p"), reply(), reply(), reply(), user("stop"), reply(), user("sum up")],
			["text"],
		],
	])("%s", (_name, messages, expected) => {
		expect(calls(demoReply(messages))).toEqual(expected);
	});

	it("quotes what the user typed, and says honestly that it is scripted afterwards", () => {
		const steered = demoReply([user("p"), reply(), reply(), reply(), user("use staging")]);
		expect(JSON.stringify(steered.content)).toContain("use staging");
		const later = demoReply([
			user("p"),
			reply(),
			reply(),
			reply(),
			user("s"),
			reply(),
			user("f"),
			reply(),
			user("more?"),
		]);
		expect(JSON.stringify(later.content)).toContain("scripted demo: this model only plays its script");
	});
});

describe("approval of mutating tools (SPEC T14–T16 needsApproval)", () => {
	const writes: string[] = [];
	const writeTool: AgentTool<{ path: string }> = {
		name: "write_file",
		description: "write",
		parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
		execute: async (_id, { path }) => {
			writes.push(path);
			return { content: [{ type: "text", text: "written" }] };
		},
	};
	async function runWith(policy: ApprovalPolicy): Promise<ToolResultMessage> {
		const scripted = scriptedModel([toolReply("write_file", { path: "a.txt" }), textReply("done")]);
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: [askBeforeRunning(writeTool, policy)],
		});
		const desk = new ApprovalDesk(agent, policy);
		await agent.prompt("write");
		await desk.idle();
		expect(agent.state.pendingApprovals).toEqual([]);
		expect(scripted.calls).toHaveLength(2); // the model read the answer
		return agent.state.messages.find((m) => m.role === "toolResult") as ToolResultMessage;
	}

	it("blocks without --yes and without an approver, telling the model about --yes", async () => {
		writes.length = 0;
		const blocked = await runWith({ autoApprove: false, approver: undefined });
		expect(blocked).toMatchObject({
			isError: true,
			content: [
				{
					type: "text",
					text: expect.stringContaining(`was denied: ${blockedWithoutYes("write_file")}`),
				},
			],
		});
		expect(writes).toEqual([]);
	});

	it("asks the approver with a one-line summary; no → declined, yes → runs", async () => {
		writes.length = 0;
		const asked: ApprovalRequest[] = [];
		const declined = await runWith({
			autoApprove: false,
			approver: async (request) => {
				asked.push(request);
				return false;
			},
		});
		expect(asked).toEqual([
			{ toolCallId: "call_1", toolName: "write_file", args: { path: "a.txt" }, summary: "write_file a.txt" },
		]);
		expect(declined.content).toEqual([
			{ type: "text", text: expect.stringContaining(`was denied: ${declinedByUser("write_file")}`) },
		]);
		const approved = await runWith({ autoApprove: false, approver: async () => true });
		expect(approved.isError).toBe(false);
		expect(writes).toEqual(["a.txt"]);
	});

	it("SPEC T17, Q8: a paused run a subscriber aborts at its agent_end is not asked about", async () => {
		const asked: ApprovalRequest[] = [];
		const policy: ApprovalPolicy = {
			autoApprove: false,
			// At the TTY such a question would stay up, about a call that no longer waits, until answered.
			approver: async (request) => {
				asked.push(request);
				return false;
			},
		};
		const scripted = scriptedModel([toolReply("write_file", { path: "a.txt" })]);
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: [askBeforeRunning(writeTool, policy)],
		});
		const desk = new ApprovalDesk(agent, policy);
		// A host's budget guard: the paused run ends as aborted instead of waiting for an answer.
		agent.subscribe((event) => {
			if (event.type === "agent_end" && event.outcome.type === "awaiting_approval")
				agent.abort("over budget");
		});
		await agent.prompt("write");
		await desk.idle();
		expect(asked).toEqual([]);
		expect(agent.state.pendingApprovals).toEqual([]);
		expect(agent.state.messages.at(-1)).toMatchObject({ role: "toolResult", isError: true });
	});

	/** A paused run with two write_file calls (call_1: a.txt, call_2: b.txt), the desk asking `approver`. */
	function pausedOnTwo(approver: ApprovalPolicy["approver"]) {
		const policy: ApprovalPolicy = { autoApprove: false, approver };
		const scripted = scriptedModel([
			{
				content: [
					{ type: "toolCall", name: "write_file", arguments: { path: "a.txt" } },
					{ type: "toolCall", name: "write_file", arguments: { path: "b.txt" } },
				],
			},
			textReply("done"),
		]);
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			tools: [askBeforeRunning(writeTool, policy)],
		});
		const desk = new ApprovalDesk(agent, policy);
		const resultOf = (id: string) =>
			agent.state.messages.find((m) => m.role === "toolResult" && m.toolCallId === id) as ToolResultMessage;
		return { agent, desk, scripted, resultOf };
	}

	it("SPEC T16: calls the host decided at agent_end are not asked about; its decision stands", async () => {
		writes.length = 0;
		const asked: string[] = [];
		const { agent, desk, scripted, resultOf } = pausedOnTwo(async (request) => {
			asked.push(request.toolCallId);
			return false;
		});
		// A host's own policy decides what it can (here: writes to a.txt are fine) before the person is asked.
		agent.subscribe((event) => {
			if (event.type === "agent_end" && event.outcome.type === "awaiting_approval")
				void agent.approve("call_1");
		});
		await agent.prompt("write");
		await desk.idle();
		expect(asked).toEqual(["call_2"]);
		expect(writes).toEqual(["a.txt"]);
		expect(resultOf("call_2").content).toEqual([
			{ type: "text", text: expect.stringContaining(`was denied: ${declinedByUser("write_file")}`) },
		]);
		expect(agent.state.pendingApprovals).toEqual([]);
		expect(scripted.calls).toHaveLength(2);
	});

	it("SPEC T16: a decision the host records while the person is asked is not overwritten by the answer", async () => {
		writes.length = 0;
		const asked: string[] = [];
		const answers: (() => void)[] = [];
		let bothAsked!: () => void;
		const asking = new Promise<void>((resolve) => (bothAsked = resolve));
		const { agent, desk, resultOf } = pausedOnTwo((request) => {
			asked.push(request.toolCallId);
			if (asked.length === 2) bothAsked();
			return new Promise((resolve) => answers.push(() => resolve(false)));
		});
		await agent.prompt("write");
		await asking;
		expect(asked).toEqual(["call_1", "call_2"]);
		await agent.approve("call_1"); // another channel decides first
		for (const answer of answers) answer(); // then the person says no to both
		await desk.idle();
		expect(writes).toEqual(["a.txt"]);
		expect(resultOf("call_1").isError).toBe(false);
		expect(resultOf("call_2").isError).toBe(true);
	});

	it("runs without asking with --yes", async () => {
		writes.length = 0;
		let asked = false;
		await runWith({
			autoApprove: true,
			approver: async () => {
				asked = true;
				return false;
			},
		});
		expect(asked).toBe(false);
		expect(writes).toEqual(["a.txt"]);
	});
});

describe("the model the environment picks", () => {
	afterEach(() => {
		vi.unstubAllEnvs();
	});
	const only = (name: string) => {
		for (const other of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"])
			vi.stubEnv(other, "");
		vi.stubEnv("GOOGLE_GENERATIVE_AI_API_KEY", "");
		vi.stubEnv(name, "test-key");
	};

	it.each([
		// platform.claude.com/docs/en/models/overview: "start with Claude Opus 5.5 for most workloads".
		["ANTHROPIC_API_KEY", "anthropic/claude-opus-5-5"],
		["OPENAI_API_KEY", "openai/gpt-5-mini"],
		["GEMINI_API_KEY", "google/gemini-2.5-flash"],
	])("with only %s set: %s", async (name, spec) => {
		only(name);
		const choice = await resolveModel({});
		expect(choice.kind === "real" ? modelSpec(choice.model) : choice.reason).toBe(spec);
	});
});

describe("where a model switch goes (setModel, /model)", () => {
	const server = openaiCompatible({ baseUrl: "http://127.0.0.1:9/v1", model: "qwen3:8b" }).model;
	const claude = catalogModel("anthropic/claude-sonnet-4-5");
	const where = (spec: string, on: "server" | "catalog") => {
		const model = switchModel(spec, { current: on === "server" ? server : claude, server });
		return `${modelSpec(model)}${model.baseUrl === server.baseUrl ? " @server" : ""}`;
	};
	it.each([
		["llama3.2", "server", "openai-compatible/llama3.2 @server"],
		["qwen/qwen3-8b", "server", "openai-compatible/qwen/qwen3-8b @server"],
		["openai-compatible/qwen/qwen3-8b", "catalog", "openai-compatible/qwen/qwen3-8b @server"],
		["hf.co/org/repo:Q4", "catalog", "openai-compatible/hf.co/org/repo:Q4 @server"],
		["openai/gpt-oss-20b", "server", "openai-compatible/openai/gpt-oss-20b @server"],
		["anthropic/claude-haiku-4-5", "server", "anthropic/claude-haiku-4-5"],
		["claude-haiku-4-5", "catalog", "anthropic/claude-haiku-4-5"],
		["llama3.2", "catalog", "openai-compatible/llama3.2 @server"],
	] as const)("%s, while on the %s model → %s", (spec, on, expected) => {
		expect(where(spec, on)).toBe(expected);
	});

	it("without a --base-url server only the catalog is there", () => {
		expect(() => switchModel("qwen/qwen3-8b", { current: claude, server: undefined })).toThrow(
			/unknown provider "qwen" in "qwen\/qwen3-8b"/,
		);
	});

	it("an --api-key key belongs to one server: same provider and base URL", () => {
		const key = { key: "k", provider: "anthropic", baseUrl: claude.baseUrl };
		expect(keyFor(key, catalogModel("anthropic/claude-haiku-4-5"))).toBe("k");
		expect(keyFor(key, catalogModel("openai/gpt-5-mini"))).toBeUndefined();
		expect(keyFor(key, { ...claude, baseUrl: "http://127.0.0.1:9" })).toBeUndefined();
		expect(keyFor(undefined, claude)).toBeUndefined();
	});
});

describe("settings files", () => {
	it("keeps known keys, warns about unknown ones (and about keys that look like secrets)", () => {
		const warnings: string[] = [];
		const config = parseConfig(
			'{"model":"m","session":false,"apiKey":"sk-1","colour":"red"}',
			"capstan.json",
			warnings,
		);
		expect(config).toEqual({ model: "m", session: false });
		expect(warnings).toEqual([
			'capstan.json: unknown setting "apiKey" ignored (keys belong in the environment, not in files)',
			'capstan.json: unknown setting "colour" ignored',
		]);
	});

	it("names the setting a misspelt key was meant to be", () => {
		const warnings: string[] = [];
		parseConfig('{"modle":"m","baseURL":"http://x","sesion_dir":"s"}', "capstan.json", warnings);
		expect(warnings).toEqual([
			'capstan.json: unknown setting "modle" ignored (did you mean "model"?)',
			'capstan.json: unknown setting "baseURL" ignored (did you mean "baseUrl"?)',
			'capstan.json: unknown setting "sesion_dir" ignored',
		]);
	});

	it.each([
		["[]", "capstan.json must hold a JSON object"],
		[
			'{"baseUrl":"localhost"}',
			'capstan.json: "baseUrl" must be an http:// or https:// URL, as in http://localhost:11434/v1',
		],
		[
			'{"baseUrl":"localhost:11434/v1"}',
			'capstan.json: "baseUrl" must be an http:// or https:// URL, as in http://localhost:11434/v1',
		],
		['{"contextWindow":-1}', 'capstan.json: "contextWindow" must be a positive integer'],
		['{"session":"no"}', 'capstan.json: "session" must be true or false'],
	])("%s is refused", (text, message) => {
		expect(() => parseConfig(text, "capstan.json", [])).toThrow(new ConfigError(message));
	});
});

describe("how a run's end reads (one line, never a stack) and exits", () => {
	const end = (
		outcome: Extract<AgentEvent, { type: "agent_end" }>["outcome"],
		last?: Partial<AssistantMessage>,
	) =>
		({ type: "agent_end", outcome, messages: last ? [{ ...reply(), ...last }] : [] }) as Extract<
			AgentEvent,
			{ type: "agent_end" }
		>;

	it.each([
		[end({ type: "completed" }), EXIT.ok, undefined],
		[
			end({ type: "aborted", reason: "interrupted (SIGINT)" }),
			EXIT.interrupted,
			"aborted: interrupted (SIGINT)",
		],
		[end({ type: "deadline" }), EXIT.runError, "stopped: the deadline passed"],
		[
			end(
				{ type: "error", error: "x" },
				{ stopReason: "error", errorKind: "context_overflow", errorMessage: "too long" },
			),
			EXIT.runError,
			expect.stringMatching(
				/^the conversation no longer fits the model's context window: start over with \/clear/,
			),
		],
		[
			end(
				{ type: "error", error: "x" },
				{ stopReason: "error", errorKind: "rate_limit", errorMessage: "429" },
			),
			EXIT.runError,
			"the provider is busy or rate-limiting (429): retry in a moment",
		],
		[end({ type: "error", error: "hook threw" }), EXIT.runError, "error: hook threw"],
	])("%#", (event, code, line) => {
		expect(exitCodeFor(event)).toBe(code);
		expect(explainEnd(event)).toEqual(line);
	});
});

describe("trace summaries", () => {
	it("summarizes arguments by their telling field", () => {
		expect(summarizeArgs({ path: "notes.md", content: "héllo" })).toBe("notes.md (6 bytes)");
		expect(summarizeArgs({ command: "npm   test\n--silent" })).toBe("npm test --silent");
		expect(summarizeArgs({})).toBe("");
		expect(summarizeArgs({ n: 1 })).toBe('{"n":1}');
	});

	it("writes the control characters of model text, tool names and output as pictures, keeping its own dim", () => {
		let out = "";
		const render = traceRenderer({ write: (text) => (out += text), color: true });
		const update = (assistantMessageEvent: unknown) =>
			render({ type: "message_update", assistantMessageEvent } as unknown as AgentEvent);
		update({ type: "thinking_start" });
		update({ type: "thinking_delta", delta: "hm\x1b]0;title\x07" });
		update({ type: "thinking_end" });
		update({ type: "text_start" });
		update({ type: "text_delta", delta: "hi\x1b[2J\rthere\ttab\r\n" });
		update({ type: "text_end" });
		render({
			type: "tool_execution_start",
			toolCallId: "1",
			toolName: "ls\x1b[H",
			args: { path: "a\x1bb" },
		} as unknown as AgentEvent);
		expect(out).toBe(
			"\x1b[2mthinking: \x1b[22m\x1b[2mhm␛]0;title␇\x1b[22m\nassistant: hi␛[2J␍there\ttab\n\n→ ls␛[H a␛b\n",
		);
	});

	it("sums usage over the assistant messages", () => {
		expect(usageLine([user("a"), reply(), result("x"), reply()])).toBe(
			"usage: 2 model calls · 20 input · 4 output tokens · $0.0030",
		);
	});

	it("SPEC M5: a model with no price table has an unknown cost, not a cost of $0.0000", () => {
		const unpriced = (): AssistantMessage => {
			const r = reply();
			return { ...r, usage: { ...r.usage, cost: { ...r.usage.cost, total: 0 }, priceUnknown: true } };
		};
		expect(usageLine([user("a"), unpriced()])).toBe(
			"usage: 1 model call · 10 input · 2 output tokens · cost unknown",
		);
	});

	it("costs read as on the status line: none shown when nothing was spent, <$0.0001 for a tiny sum", () => {
		const costing = (total: number): AssistantMessage => {
			const r = reply();
			return { ...r, usage: { ...r.usage, cost: { ...r.usage.cost, total } } };
		};
		// The scripted demo's replies: priced at nothing, not unpriced.
		expect(usageLine([user("a"), costing(0)])).toBe("usage: 1 model call · 10 input · 2 output tokens");
		expect(usageLine([user("a"), costing(0.00002)])).toBe(
			"usage: 1 model call · 10 input · 2 output tokens · <$0.0001",
		);
		expect(usageLine([user("a"), costing(12.3456)])).toBe(
			"usage: 1 model call · 10 input · 2 output tokens · $12.35",
		);
	});
});
