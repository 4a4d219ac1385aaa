/**
 * `CliApp` as the interactive mode sees it (the `InteractiveHost` contract), built in-process by the same
 * `CliApp.create` the command uses: model description and switching, thinking, sessions, approval policy.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CliApp } from "../../src/cli/app.js";
import { parseCliArgs } from "../../src/cli/args.js";
import type { AssistantMessage } from "../../src/core/messages.js";
import { API_KEY_ENV_VARS } from "../../src/providers/base/env.js";
import { textReply } from "../providers/openai-completions/synthetic.js";
import { firstBodyMatching } from "../providers/support/fixtures.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { redirectDescriptor } from "../support/descriptors.js";
import { cleanUpAfterEach, tempProject } from "./support.js";

cleanUpAfterEach();
closeServersAfterEach();

beforeEach(() => {
	for (const name of Object.values(API_KEY_ENV_VARS).flat()) vi.stubEnv(name, "");
	return () => vi.unstubAllEnvs();
});

async function app(argv: string[], cwd = tempProject()): Promise<CliApp> {
	vi.stubEnv("TMPDIR", cwd);
	return CliApp.create({ args: parseCliArgs(argv), config: {}, cwd, version: "9.9.9" });
}

describe("the InteractiveHost of the command", () => {
	it("tells its retry listeners of every provider retry (SPEC A8), so the TTY can show the wait", async () => {
		const server = await serve(
			{ type: "http", status: 503, headers: { "retry-after-ms": "1" }, body: "busy" },
			{ type: "sse", body: firstBodyMatching(["openai-chat"], "openai-text") },
		);
		const host = await app(["--base-url", `${server.baseUrl}/v1`, "--model", "gpt-4o-mini", "--no-session"]);
		const retries: number[] = [];
		const off = host.onRetry((info) => retries.push(info.attempt));
		await host.agent.prompt("hi");
		off();
		expect(retries).toEqual([1]);
		expect(host.agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});

	it("hands its warnings to an installed listener (the TTY's transcript), to AppInput.warn otherwise", async () => {
		const server = await serve(
			{ type: "sse", body: textReply("One."), split: false },
			{ type: "sse", body: textReply("Two."), split: false },
		);
		const cwd = tempProject();
		vi.stubEnv("TMPDIR", cwd);
		const warned: string[] = [];
		const host = await CliApp.create({
			args: parseCliArgs(["--base-url", `${server.baseUrl}/v1`, "--model", "m"]),
			config: {},
			cwd,
			version: "9.9.9",
			warn: (text) => warned.push(text),
		});
		await host.agent.prompt("first");
		const path = host.sessions.current;
		if (path === undefined) throw new Error("no session file");
		const shown: string[] = [];
		const off = host.onWarning((text) => shown.push(text));
		redirectDescriptor(path, "/dev/full", "w");
		await host.agent.prompt("second");
		off();
		expect(shown).toEqual([expect.stringMatching(/^Session .+ can no longer be written \(ENOSPC/)]);
		expect(warned).toEqual([]);
	});

	it("describes a --base-url model and switches to another id on the same server", async () => {
		const cwd = tempProject();
		const host = await app(
			["--base-url", "http://127.0.0.1:9/v1", "--model", "qwen3:8b", "--thinking", "low"],
			cwd,
		);
		expect(host.describeModel()).toEqual({
			provider: "openai-compatible",
			id: "qwen3:8b",
			spec: "openai-compatible/qwen3:8b",
			thinkingLevel: "low",
			contextWindow: 32_768,
			scripted: false,
			baseUrl: "http://127.0.0.1:9/v1",
		});
		expect(host.cwd).toBe(cwd);
		expect(host.version).toBe("9.9.9");
		expect(host.autoApprove).toBe(false);
		expect(host.scripted).toBeUndefined();
		host.setModel("llama3.2");
		expect(host.describeModel()).toMatchObject({ id: "llama3.2", baseUrl: "http://127.0.0.1:9/v1" });
		host.setThinking("high");
		expect(host.agent.state.thinkingLevel).toBe("high");
		expect(host.listModels()[0]).toBe("openai-compatible/llama3.2");
		expect(host.listModels()).toContain("anthropic/claude-sonnet-4-5");
		// A catalog model without its key is refused with the variable to set; the model stays as it was.
		expect(() => host.setModel("anthropic/claude-sonnet-4-5")).toThrow(/set ANTHROPIC_API_KEY/);
		expect(host.describeModel().id).toBe("llama3.2");
	});

	it("runs the demo in a sandbox with its own session folder, and writes no file before the first run", async () => {
		const cwd = tempProject();
		const host = await app([], cwd);
		expect(host.scripted).toMatchObject({
			longTool: "watch_build",
			notice: expect.stringContaining("no API key found"),
		});
		expect(host.scripted?.sandbox.startsWith(join(cwd, "capstan-demo-"))).toBe(true);
		expect(host.describeModel()).toMatchObject({ provider: "scripted", scripted: true });
		expect(() => host.setModel("x")).toThrow(/scripted demo has no other model/);
		expect(host.autoApprove).toBe(true); // it only writes inside its sandbox
		expect(host.sessions).toMatchObject({ enabled: true, current: undefined });
		expect(await host.sessions.list()).toEqual([]);
		await host.agent.prompt("hello"); // the whole script: nobody steers here
		const [saved] = await host.sessions.list();
		expect(saved).toMatchObject({ path: host.sessions.current, title: "hello", messageCount: 10 });
		await host.sessions.clear();
		expect(host.sessions.current).toBeUndefined();
		expect(host.agent.state.messages).toEqual([]);
		await host.sessions.resume(saved?.path ?? "");
		expect(host.agent.state.messages).toHaveLength(10); // nobody steered: watch_build ran its 3 s
		expect(host.sessions.current).toBe(saved?.path);
	});

	it("adds what to do about a run's end only when there is a remedy: the TTY shows the error itself", async () => {
		const host = await app(["--demo"]);
		const failed = (errorKind?: "context_overflow") => ({
			type: "agent_end" as const,
			messages: [failedReply("HTTP 500: boom", errorKind)],
			outcome: { type: "error" as const, error: "HTTP 500: boom" },
		});
		expect(host.explainEnd(failed())).toBeUndefined();
		expect(host.explainEnd(failed("context_overflow"))).toMatch(/no longer fits .* \/clear/);
		expect(
			host.explainEnd({ type: "agent_end", messages: [], outcome: { type: "aborted", reason: "Esc" } }),
		).toBeUndefined();
	});
});

/** A reply that ended in an error, as the loop leaves it. */
function failedReply(errorMessage: string, errorKind?: "context_overflow"): AssistantMessage {
	const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
	return {
		role: "assistant",
		content: [],
		api: "openai-completions",
		provider: "openai-compatible",
		model: "m",
		usage: { ...zero, totalTokens: 0, cost: { ...zero, total: 0 } },
		stopReason: "error",
		errorMessage,
		...(errorKind ? { errorKind } : {}),
		timestamp: 0,
	};
}

/** One request that would have left the machine: where to, and the key it carried. */
interface Outgoing {
	url: string;
	key: string | null;
}

/**
 * Catch requests at the network boundary: loopback goes through, anything else is recorded with its key
 * header and answered 400 (the real provider code builds the request; nothing leaves the machine).
 */
function interceptRemoteRequests(): Outgoing[] {
	const sent: Outgoing[] = [];
	const realFetch = globalThis.fetch;
	vi.stubGlobal("fetch", async (input: string | URL | Request, init: RequestInit = {}) => {
		const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
		if (new URL(url).hostname === "127.0.0.1") return realFetch(input, init);
		const headers = new Headers(init.headers);
		sent.push({ url, key: headers.get("authorization") ?? headers.get("x-api-key") });
		return new Response('{"error":{"message":"intercepted"}}', {
			status: 400,
			headers: { "content-type": "application/json" },
		});
	});
	return sent;
}

afterEach(() => {
	vi.unstubAllGlobals();
});

describe("--api-key goes only to the server of the model it was given with", () => {
	it("a switch to another provider sends that provider's own key; the same server keeps the flag's", async () => {
		vi.stubEnv("OPENAI_API_KEY", "sk-openai-env");
		const sent = interceptRemoteRequests();
		const host = await app([
			"--model",
			"anthropic/claude-sonnet-4-5",
			"--api-key",
			"sk-ant-flag",
			"--no-session",
		]);
		host.setModel("openai/gpt-5-mini");
		await host.agent.prompt("hi");
		host.setModel("anthropic/claude-haiku-4-5");
		await host.agent.prompt("hi");
		expect(sent).toEqual([
			{ url: "https://api.openai.com/v1/responses", key: "Bearer sk-openai-env" },
			{ url: "https://api.anthropic.com/v1/messages", key: "sk-ant-flag" },
		]);
	});

	it("a --base-url server's key does not stand in for a catalog model's: that one needs its own", async () => {
		const sent = interceptRemoteRequests();
		const server = await serve({ type: "sse", body: textReply("Hi."), split: false });
		const host = await app([
			...["--base-url", `${server.baseUrl}/v1`, "--model", "m", "--api-key", "server-key", "--no-session"],
		]);
		expect(() => host.setModel("openai/gpt-5-mini")).toThrow(/no API key for openai\/gpt-5-mini/);
		vi.stubEnv("OPENAI_API_KEY", "sk-openai-env");
		host.setModel("openai/gpt-5-mini");
		await host.agent.prompt("hi");
		host.setModel("openai-compatible/m");
		await host.agent.prompt("hi again");
		expect(sent).toEqual([{ url: "https://api.openai.com/v1/responses", key: "Bearer sk-openai-env" }]);
		expect(server.requests.map((request) => request.headers.authorization)).toEqual(["Bearer server-key"]);
	});
});

describe("switching models on a --base-url server", () => {
	it("takes the server's ids with slashes and its listed spelling, and goes back after a catalog model", async () => {
		vi.stubEnv("ANTHROPIC_API_KEY", "sk-ant-env");
		const server = await serve({ type: "sse", body: textReply("Back on the server."), split: false });
		const baseUrl = `${server.baseUrl}/v1`;
		const host = await app(["--base-url", baseUrl, "--model", "qwen/qwen3-8b", "--no-session"]);
		expect(host.describeModel()).toMatchObject({ spec: "openai-compatible/qwen/qwen3-8b", baseUrl });

		host.setModel("hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M");
		expect(host.describeModel()).toMatchObject({ id: "hf.co/unsloth/Qwen3-8B-GGUF:Q4_K_M", baseUrl });
		host.setModel("openai/gpt-oss-20b"); // a catalog provider's name, but no catalog model: the server's id
		expect(host.describeModel()).toMatchObject({ provider: "openai-compatible", id: "openai/gpt-oss-20b" });
		host.setModel(host.listModels()[0] ?? ""); // the exact spelling listModels returns as current
		expect(host.describeModel().id).toBe("openai/gpt-oss-20b");

		host.setModel("anthropic/claude-sonnet-4-5");
		expect(host.describeModel()).toMatchObject({ provider: "anthropic", id: "claude-sonnet-4-5" });
		expect(host.describeModel().baseUrl).toBeUndefined();
		// The way back: the server's model is listed right after the current one.
		expect(host.listModels().slice(0, 2)).toEqual([
			"anthropic/claude-sonnet-4-5",
			"openai-compatible/openai/gpt-oss-20b",
		]);
		host.setModel("openai-compatible/qwen/qwen3-8b");
		await host.agent.prompt("hi");
		expect(JSON.parse(server.requests[0]?.body ?? "{}")).toMatchObject({ model: "qwen/qwen3-8b" });
		expect(host.agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
	});
});
