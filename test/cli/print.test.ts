/**
 * Print and JSON modes on the real provider path: the command, spawned as a child process, talks HTTP to
 * the loopback replay server serving recorded provider streams (`--base-url` for an OpenAI-compatible
 * server, or a catalog Anthropic model sent to the loopback address).
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/protocol/events.js";
import { anthropicFacts } from "../providers/anthropic/facts.js";
import { chatFacts } from "../providers/openai-completions/facts.js";
import { chunk, DONE, textReply, usageChunk } from "../providers/openai-completions/synthetic.js";
import { firstBodyMatching } from "../providers/support/fixtures.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { jsonResponse } from "../providers/support/replay-server.js";
import {
	cleanUpAfterEach,
	jsonLines,
	runCli,
	runCliWithStdout,
	tempProject,
	unbalancedEvents,
	unpairedCalls,
} from "./support.js";

closeServersAfterEach();
cleanUpAfterEach();

const CHAT_TEXT = firstBodyMatching(["openai-chat"], "openai-text");
const ANTHROPIC_TOOLS = firstBodyMatching(["anthropic-messages"], "multi_tool_streaming");
const ANTHROPIC_TEXT = firstBodyMatching(["anthropic-messages"], "anthropic-text.chunks");

interface ChatBody {
	model: string;
	messages: { role: string; content: unknown }[];
	tools?: { function: { name: string } }[];
}

describe("print mode (-p) against an OpenAI-compatible server (--base-url)", () => {
	it("prints the final answer and exits 0; the request is the coding agent's", async () => {
		const server = await serve({ type: "sse", body: CHAT_TEXT, split: { seed: 5 } });
		const cwd = tempProject();
		const run = await runCli(
			["-p", "Say hello", "--base-url", `${server.baseUrl}/v1`, "--model", "test-model"],
			{
				cwd,
			},
		);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toBe(`${chatFacts(CHAT_TEXT).text}\n`);
		const [request] = server.requests;
		expect(request?.path).toBe("/v1/chat/completions");
		expect(request?.headers.authorization).toBeUndefined(); // a local server needs no key
		const body = JSON.parse(request?.body ?? "{}") as ChatBody;
		expect(body.model).toBe("test-model");
		expect(body.messages.at(-1)).toEqual({ role: "user", content: "Say hello" });
		expect(JSON.stringify(body.messages[0])).toContain(`Working directory: ${cwd}`);
		expect(body.tools?.map((tool) => tool.function.name)).toEqual([
			"read_file",
			"list_dir",
			"search_text",
			"write_file",
			"edit_file",
			"shell",
		]);
	});

	it("reads the prompt from stdin when it is piped", async () => {
		const server = await serve({ type: "sse", body: CHAT_TEXT, split: false });
		const run = await runCli(["--base-url", `${server.baseUrl}/v1`, "--model", "m"], {
			cwd: tempProject(),
			input: "What is in this repo?\n",
		});
		expect(run.code).toBe(0);
		const body = JSON.parse(server.requests[0]?.body ?? "{}") as ChatBody;
		expect(body.messages.at(-1)).toEqual({ role: "user", content: "What is in this repo?" });
	});

	it("asks the server which model to use when --model is not given", async () => {
		const server = await serve(jsonResponse(200, { object: "list", data: [{ id: "served-model" }] }), {
			type: "sse",
			body: CHAT_TEXT,
			split: false,
		});
		const run = await runCli(["-p", "hi", "--base-url", `${server.baseUrl}/v1`], { cwd: tempProject() });
		expect(run.code).toBe(0);
		expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
			"GET /v1/models",
			"POST /v1/chat/completions",
		]);
		expect((JSON.parse(server.requests[1]?.body ?? "{}") as ChatBody).model).toBe("served-model");
	});

	it("takes the server and model from capstan.json; flags win", async () => {
		const server = await serve(
			{ type: "sse", body: CHAT_TEXT, split: false },
			{ type: "sse", body: CHAT_TEXT, split: false },
		);
		const cwd = tempProject();
		writeFileSync(
			join(cwd, "capstan.json"),
			JSON.stringify({ baseUrl: `${server.baseUrl}/v1`, model: "cfg" }),
		);
		expect((await runCli(["-p", "a"], { cwd })).code).toBe(0);
		expect((await runCli(["-p", "b", "--model", "flag"], { cwd })).code).toBe(0);
		const models = server.requests.map((r) => (JSON.parse(r.body) as ChatBody).model);
		expect(models).toEqual(["cfg", "flag"]);
	});

	it.skipIf(!existsSync("/dev/full"))("exits 1 with one line when the answer cannot be written", async () => {
		const server = await serve({ type: "sse", body: CHAT_TEXT, split: false });
		const run = await runCliWithStdout(
			["-p", "hi", "--base-url", `${server.baseUrl}/v1`, "--model", "m", "--no-session"],
			{ cwd: tempProject() },
			"/dev/full",
		);
		expect(run).toEqual({
			code: 1,
			stderr: expect.stringMatching(/^capstan: cannot write the output: ENOSPC.*\n$/),
		});
	});

	it("exits 1 with the reason on stderr when the run ends in an error (refused key)", async () => {
		const server = await serve(
			jsonResponse(401, { error: { message: "Incorrect API key provided", type: "auth" } }),
		);
		const run = await runCli(["-p", "hi", "--base-url", `${server.baseUrl}/v1`, "--model", "m"], {
			cwd: tempProject(),
		});
		expect(run.code).toBe(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toMatch(
			/^capstan: the provider refused the API key \(.*Incorrect API key provided.*\)/,
		);
		expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
	});

	it("tells the user what to do on a context-window overflow", async () => {
		const server = await serve(
			jsonResponse(400, {
				error: {
					message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
				},
			}),
		);
		const run = await runCli(["-p", "hi", "--base-url", `${server.baseUrl}/v1`, "--model", "m"], {
			cwd: tempProject(),
		});
		expect(run.code).toBe(1);
		expect(run.stderr).toBe(
			"capstan: the conversation no longer fits the model's context window: start over with /clear (interactive) or a new session (run without --continue/--resume), or pick a model with a larger window\n",
		);
	});
});

/** A SYNTHETIC Chat Completions reply calling the CLI's `shell` tool. */
function shellCall(command: string): string {
	const call = { index: 0, id: "call_s1", type: "function", function: { name: "shell", arguments: "" } };
	return (
		chunk({ role: "assistant", content: null, tool_calls: [call] }) +
		chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ command }) } }] }) +
		chunk({}, "tool_calls") +
		usageChunk(10, 5) +
		DONE
	);
}

describe("credentials in --base-url never reach the CLI's own messages (SPEC E3)", () => {
	it("a failed GET /models names the server without its password or credential query", async () => {
		const server = await serve(jsonResponse(401, { error: { message: "no" } }));
		const port = new URL(server.baseUrl).port;
		const cwd = tempProject();
		// fetch refuses a URL with credentials, and quotes it whole in its error.
		const withPassword = await runCli(
			["-p", "hi", "--base-url", `http://proxyuser:pwSENTINELsecret9@127.0.0.1:${port}/v1`],
			{ cwd },
		);
		expect(withPassword.code).not.toBe(0);
		expect(withPassword.stderr).toContain("cannot ask http://proxyuser:[redacted]@127.0.0.1:");
		expect(withPassword.stderr).not.toContain("SENTINEL");
		// The server answers 401; the message repeats the address it asked, query and all.
		const withQuery = await runCli(
			["-p", "hi", "--base-url", `${server.baseUrl}/v1?x-functions-code=qSENTINELcode77`],
			{ cwd },
		);
		expect(withQuery.code).not.toBe(0);
		expect(withQuery.stderr).toContain("HTTP 401");
		expect(withQuery.stderr).not.toContain("SENTINEL");
	});
});

describe("the server's key variable (apiKeyEnv) and the shell", () => {
	it("sends the key to the server but hides its variable from the commands the agent runs", async () => {
		const server = await serve(
			{ type: "sse", body: shellCall("env"), split: false },
			{ type: "sse", body: textReply("Listed."), split: false },
		);
		const cwd = tempProject();
		// The user's own settings (XDG_CONFIG_HOME is <cwd>/.config in these runs): a project's may not say it.
		mkdirSync(join(cwd, ".config", "capstan"), { recursive: true });
		writeFileSync(
			join(cwd, ".config", "capstan", "config.json"),
			JSON.stringify({ baseUrl: `${server.baseUrl}/v1`, model: "m", apiKeyEnv: "VLLM_TOKEN" }),
		);
		const run = await runCli(["-p", "show the environment", "--yes"], {
			cwd,
			env: { VLLM_TOKEN: "tok-vllm-secret" },
		});
		expect(run.code).toBe(0);
		expect(server.requests.map((r) => r.headers.authorization)).toEqual([
			"Bearer tok-vllm-secret",
			"Bearer tok-vllm-secret",
		]);
		const second = JSON.parse(server.requests[1]?.body ?? "{}") as ChatBody;
		const listing = JSON.stringify(second.messages.at(-1));
		expect(listing).toContain("PATH=");
		expect(listing).not.toContain("tok-vllm-secret");
	});
});

describe("a project's capstan.json cannot send the user's keys to a server of its choosing", () => {
	it("its server gets no key: not its apiKeyEnv, not the user's, not a catalog provider's, not --api-key", async () => {
		const server = await serve(
			{ type: "sse", body: textReply("Hi."), split: false },
			{ type: "sse", body: textReply("Hi."), split: false },
		);
		const cwd = tempProject();
		const env = { VLLM_TOKEN: "tok-vllm-secret", ANTHROPIC_API_KEY: "sk-ant-test-secret" };
		const baseUrl = `${server.baseUrl}/v1`;
		mkdirSync(join(cwd, ".config", "capstan"), { recursive: true });
		writeFileSync(
			join(cwd, ".config", "capstan", "config.json"),
			JSON.stringify({ apiKeyEnv: "VLLM_TOKEN" }),
		);
		writeFileSync(
			join(cwd, "capstan.json"),
			JSON.stringify({ baseUrl, model: "m", apiKeyEnv: "VLLM_TOKEN" }),
		);
		const keyless = await runCli(["-p", "hi"], { cwd, env });
		expect(keyless.code).toBe(0);
		expect(keyless.stderr).toContain(
			'capstan.json: "apiKeyEnv" ignored: a project\'s settings cannot choose which key is sent',
		);
		// A catalog model at that server would carry the provider's key: refused, saying how to allow it.
		writeFileSync(
			join(cwd, "capstan.json"),
			JSON.stringify({ baseUrl, model: "anthropic/claude-sonnet-4-5" }),
		);
		const catalog = await runCli(["-p", "hi"], { cwd, env });
		expect(catalog.code).toBe(2);
		expect(catalog.stderr).toContain(`${baseUrl} is named only by the project's capstan.json`);
		expect(catalog.stderr).toContain(`pass --base-url ${baseUrl}`);
		writeFileSync(join(cwd, "capstan.json"), JSON.stringify({ baseUrl, model: "m" }));
		const flagged = await runCli(["-p", "hi", "--api-key", "sk-typed-secret"], { cwd, env });
		expect(flagged.code).toBe(2);
		expect(flagged.stderr).toContain("--api-key would go to");
		// Named by the user too (the flag), the server is theirs: the key goes.
		const confirmed = await runCli(["-p", "hi", "--base-url", baseUrl, "--api-key", "sk-typed-secret"], {
			cwd,
			env,
		});
		expect(confirmed.code).toBe(0);
		expect(server.requests.map((r) => r.headers.authorization)).toEqual([
			undefined,
			"Bearer sk-typed-secret",
		]);
		expect(JSON.stringify(server.requests[0]?.headers)).not.toMatch(/secret/i);
	});
});

describe("a catalog model on the real Anthropic path (--model anthropic/… --base-url loopback)", () => {
	it("runs the recorded tool calls (unknown to the CLI: error results), then prints the recorded answer", async () => {
		const server = await serve(
			{ type: "sse", body: ANTHROPIC_TOOLS, split: { seed: 2 } },
			{ type: "sse", body: ANTHROPIC_TEXT, split: { seed: 3 } },
		);
		const run = await runCli(
			["-p", "Add 2 and 3", "--model", "anthropic/claude-sonnet-4-5", "--base-url", server.baseUrl],
			{ cwd: tempProject(), env: { ANTHROPIC_API_KEY: "sk-ant-test-secret" } },
		);
		expect(run.stderr).toBe("");
		expect(run.code).toBe(0);
		expect(run.stdout).toBe(`${anthropicFacts(ANTHROPIC_TEXT).texts.join("")}\n`);
		expect(server.requests.map((r) => r.path)).toEqual(["/v1/messages", "/v1/messages"]);
		expect(server.requests[0]?.headers["x-api-key"]).toBe("sk-ant-test-secret");
		const second = JSON.parse(server.requests[1]?.body ?? "{}") as {
			model: string;
			messages: { role: string }[];
		};
		expect(second.model).toBe("claude-sonnet-4-5");
		expect(second.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
	});
});

describe("JSON mode (--json) on the real provider path", () => {
	it("writes every AgentEvent as one JSON line, balanced, secrets absent", async () => {
		const server = await serve(
			{ type: "sse", body: ANTHROPIC_TOOLS, split: { seed: 4 } },
			{ type: "sse", body: ANTHROPIC_TEXT, split: { seed: 5 } },
		);
		const run = await runCli(
			["-p", "Add 2 and 3", "--json", "--model", "anthropic/claude-sonnet-4-5", "--base-url", server.baseUrl],
			{ cwd: tempProject(), env: { ANTHROPIC_API_KEY: "sk-ant-test-secret" } },
		);
		expect(run.code).toBe(0);
		const events = jsonLines(run.stdout) as unknown as AgentEvent[];
		expect(unbalancedEvents(events)).toEqual([]); // SPEC L4
		expect(events.filter((e) => e.type === "message_update").length).toBeGreaterThan(5);
		const end = events[events.length - 1] as Extract<AgentEvent, { type: "agent_end" }>;
		expect(end.outcome.type).toBe("completed");
		expect(unpairedCalls(end.messages)).toEqual([]); // SPEC I1
		expect(run.stdout + run.stderr).not.toContain("sk-ant-test-secret"); // SPEC E3
	});
});
