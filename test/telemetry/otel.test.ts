import { AsyncLocalStorage } from "node:async_hooks";
import {
	type Attributes,
	type Context,
	type ContextManager,
	context,
	ROOT_CONTEXT,
	SpanKind,
	SpanStatusCode,
	trace,
} from "@opentelemetry/api";
import {
	AlwaysOffSampler,
	BasicTracerProvider,
	InMemorySpanExporter,
	type ReadableSpan,
	type Sampler,
	SamplingDecision,
	SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RetryInfo } from "../../src/core/model.js";
import {
	Agent,
	type AgentLoopConfig,
	type AgentTool,
	type ModelCallRecord,
	type ReplyGuard,
	type TelemetryOptions,
	type ToolCallRecord,
	type Usage,
} from "../../src/index.js";
import { type OpenTelemetryOptions, openTelemetry } from "../../src/otel.js";
import { stream } from "../../src/providers/registry.js";
import { type ScriptedReply, scriptedModel, textReply } from "../../src/testing/index.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { testModel } from "../providers/support/models.js";
import { jsonResponse } from "../providers/support/replay-server.js";
import { FAST, textBody } from "../reliability/support.js";
import { assistant, echoTool, runScript, startScript } from "../support/run.js";

afterEach(() => {
	vi.useRealTimers();
});
closeServersAfterEach();

function tracing() {
	const exporter = new InMemorySpanExporter();
	const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
	const tracer = provider.getTracer("capstan-test");
	const spans = () => exporter.getFinishedSpans();
	const byName = (name: string) => spans().filter((span) => span.name === name);
	const one = (name: string): ReadableSpan => {
		const found = byName(name);
		if (found.length !== 1) throw new Error(`expected one span ${name}, got ${found.length}`);
		return found[0]!;
	};
	return { tracer, provider, spans, byName, one };
}

const call = (name: string, args: Record<string, unknown> = {}) => ({
	type: "toolCall" as const,
	name,
	arguments: args,
});

const usage: Partial<Usage> = {
	input: 100,
	output: 20,
	cacheRead: 30,
	cacheWrite: 5,
	reasoning: 7,
	cost: { input: 0.1, output: 0.2, cacheRead: 0.01, cacheWrite: 0.02, total: 0.33 },
};

const failing: AgentTool = {
	name: "fail",
	description: "always fails",
	parameters: { type: "object", properties: {} },
	execute: async () => {
		throw new Error("disk on fire");
	},
};

const script: ScriptedReply[] = [
	{
		content: [call("echo", { text: "a", i: "say a" }), call("fail"), call("guarded", { text: "g" })],
		usage,
		responseId: "resp_1",
	},
	{ ...textReply("all done"), usage, responseId: "resp_2" },
];

async function tracedRun(telemetry: Omit<TelemetryOptions, "sinks">, otel: OpenTelemetryOptions = {}) {
	const t = tracing();
	const run = await runScript(script, {
		tools: [echoTool("echo"), failing, echoTool("guarded")],
		systemPrompt: "You are terse.",
		config: {
			intentTracing: true,
			beforeToolCall: ({ toolCall }) => (toolCall.name === "guarded" ? { block: true } : undefined),
			streamOptions: { temperature: 0.2, maxTokens: 1000, sessionId: "conv-1" },
			telemetry: { ...telemetry, sinks: [openTelemetry(t.tracer, otel)] },
		},
	});
	return { ...t, run };
}

describe("OpenTelemetry spans, GenAI semantic conventions — SPEC X3", () => {
	it("one invoke_agent span per run, chat and execute_tool children, GenAI attributes — SPEC X3, C5", async () => {
		const { spans, one, byName } = await tracedRun({}, { agentName: "helper" });
		const root = one("invoke_agent helper");
		const chats = byName("chat scripted-model");
		expect(chats).toHaveLength(2);
		// Blocked: never executed, so no execute_tool span (an event on the run span instead).
		expect(
			spans()
				.map((s) => s.name)
				.sort(),
		).toEqual([
			"chat scripted-model",
			"chat scripted-model",
			"execute_tool echo",
			"execute_tool fail",
			"invoke_agent helper",
		]);

		// Parentage: every chat and execute_tool span is a child of the run span, in the same trace.
		const rootId = root.spanContext().spanId;
		for (const span of spans().filter((s) => s !== root)) {
			expect(span.parentSpanContext?.spanId).toBe(rootId);
			expect(span.spanContext().traceId).toBe(root.spanContext().traceId);
		}
		expect(root.parentSpanContext).toBeUndefined();

		expect(root.kind).toBe(SpanKind.INTERNAL);
		expect(root.attributes).toMatchObject({
			"gen_ai.operation.name": "invoke_agent",
			"gen_ai.agent.name": "helper",
			"gen_ai.provider.name": "scripted",
			"gen_ai.request.model": "scripted-model",
			"gen_ai.conversation.id": "conv-1",
			"gen_ai.request.temperature": 0.2,
			"gen_ai.request.max_tokens": 1000,
			"gen_ai.usage.input_tokens": 270, // (100 input + 30 cache read + 5 cache write) × 2
			"gen_ai.usage.output_tokens": 40,
			"capstan.run.outcome": "completed",
			"capstan.run.turns": 2,
			"capstan.tools.never_used": [],
		});
		expect(root.attributes["capstan.usage.cost"]).toBeCloseTo(0.66, 10);
		expect(root.status.code).toBe(SpanStatusCode.UNSET);
		expect(root.events.map((e) => [e.name, e.attributes?.["gen_ai.tool.name"]])).toEqual([
			["capstan.tool_call.not_executed", "guarded"],
		]);

		const [first, second] = chats;
		expect(first?.kind).toBe(SpanKind.CLIENT);
		expect(first?.attributes).toMatchObject({
			"gen_ai.operation.name": "chat",
			"gen_ai.provider.name": "scripted",
			"gen_ai.request.model": "scripted-model",
			"gen_ai.response.model": "scripted-model",
			"gen_ai.response.id": "resp_1",
			"gen_ai.response.finish_reasons": ["tool_call"],
			"gen_ai.usage.input_tokens": 135,
			"gen_ai.usage.output_tokens": 20,
			"gen_ai.usage.cache_read.input_tokens": 30,
			"gen_ai.usage.cache_creation.input_tokens": 5,
			"gen_ai.usage.reasoning.output_tokens": 7,
			"capstan.usage.cost": 0.33,
			"capstan.stop_reason": "toolUse",
		});
		expect(second?.attributes).toMatchObject({
			"gen_ai.response.id": "resp_2",
			"gen_ai.response.finish_reasons": ["stop"],
		});

		const echo = one("execute_tool echo");
		expect(echo.kind).toBe(SpanKind.INTERNAL);
		expect(echo.attributes).toMatchObject({
			"gen_ai.operation.name": "execute_tool",
			"gen_ai.tool.name": "echo",
			"gen_ai.tool.call.id": "call_1",
			"gen_ai.tool.type": "function",
			"gen_ai.tool.description": "echo (echo)",
			"capstan.tool.status": "ok",
			"capstan.tool.intent": "say a", // SPEC C5
		});
		expect(echo.status.code).toBe(SpanStatusCode.UNSET);
		const fail = one("execute_tool fail");
		expect(fail.status.code).toBe(SpanStatusCode.ERROR);
		expect(fail.attributes).toMatchObject({ "error.type": "tool_error", "capstan.tool.status": "error" });
	});

	it("each chat span carries its request's settings, server and conversation, the server from its start — SPEC X3", async () => {
		// The inference span is where the conventions put these, and where backends read a generation's model
		// parameters; server.* are for sampling decisions, so the sampler must see them.
		const sampled: Record<string, Attributes> = {};
		const sampler: Sampler = {
			shouldSample: (_context, _traceId, name, _kind, attributes) => {
				sampled[name] = attributes;
				return { decision: SamplingDecision.RECORD_AND_SAMPLED };
			},
			toString: () => "recording sampler",
		};
		const exporter = new InMemorySpanExporter();
		const provider = new BasicTracerProvider({
			sampler,
			spanProcessors: [new SimpleSpanProcessor(exporter)],
		});
		const scripted = scriptedModel([textReply("hi")]);
		const agent = new Agent({
			model: { ...scripted.model, baseUrl: "https://api.example.com/v1" },
			streamFn: scripted.stream,
			streamOptions: { temperature: 0.3, maxTokens: 99, sessionId: "conv-7" },
			telemetry: { sinks: [openTelemetry(provider.getTracer("t"))] },
		});
		await agent.prompt("hello");
		const chat = exporter.getFinishedSpans().find((span) => span.name === "chat scripted-model");
		expect(chat?.attributes).toMatchObject({
			"gen_ai.request.temperature": 0.3,
			"gen_ai.request.max_tokens": 99,
			"gen_ai.conversation.id": "conv-7",
			"server.address": "api.example.com",
			"server.port": 443,
		});
		expect(sampled["chat scripted-model"]).toMatchObject({
			"gen_ai.operation.name": "chat",
			"gen_ai.provider.name": "scripted",
			"gen_ai.request.model": "scripted-model",
			"server.address": "api.example.com",
			"server.port": 443,
		});
	});

	it("message content is recorded only when the host opts in (recordContent) — SPEC X3", async () => {
		const contentKeys = [
			"gen_ai.input.messages",
			"gen_ai.output.messages",
			"gen_ai.system_instructions",
			"gen_ai.tool.call.arguments",
			"gen_ai.tool.call.result",
		];
		const withoutContent = await tracedRun({});
		for (const span of withoutContent.spans())
			for (const key of contentKeys) expect(span.attributes[key], `${span.name} ${key}`).toBeUndefined();

		const withContent = await tracedRun({ recordContent: true });
		const root = withContent.one("invoke_agent");
		expect(JSON.parse(String(root.attributes["gen_ai.system_instructions"]))).toEqual([
			{ type: "text", content: "You are terse." },
		]);
		const [first, second] = withContent.byName("chat scripted-model");
		expect(JSON.parse(String(first?.attributes["gen_ai.input.messages"]))).toEqual([
			{ role: "user", parts: [{ type: "text", content: "hi" }] },
		]);
		// By default each span records its call's whole request, as the conventions describe the attribute.
		expect(first?.attributes["capstan.input.messages_omitted"]).toBeUndefined();
		const input = JSON.parse(String(second?.attributes["gen_ai.input.messages"]));
		expect(input.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "tool", "tool", "tool"]);
		input.shift();
		expect(input[0].parts[0]).toEqual({
			type: "tool_call",
			id: "call_1",
			name: "echo",
			arguments: { text: "a", i: "say a" },
		});
		expect(input[1].parts[0]).toEqual({ type: "tool_call_response", id: "call_1", response: "echo:a" });
		expect(JSON.parse(String(second?.attributes["gen_ai.output.messages"]))).toEqual([
			{ role: "assistant", parts: [{ type: "text", content: "all done" }], finish_reason: "stop" },
		]);
		const echo = withContent.one("execute_tool echo");
		expect(JSON.parse(String(echo.attributes["gen_ai.tool.call.arguments"]))).toEqual({ text: "a" });
		expect(echo.attributes["gen_ai.tool.call.result"]).toBe("echo:a");
	});

	it('with recordContent each chat span carries the system instructions it was sent; with inputMessages "new" only the first — SPEC X3', async () => {
		// An inference span's input is its system instructions plus its messages: Langfuse, for one, shows a
		// generation's system prompt only when gen_ai.system_instructions is on that span.
		const instructions = [{ type: "text", content: "You are terse." }];
		const all = await tracedRun({ recordContent: true });
		const chats = all.byName("chat scripted-model");
		expect(chats).toHaveLength(2);
		for (const chat of chats)
			expect(JSON.parse(String(chat.attributes["gen_ai.system_instructions"]))).toEqual(instructions);

		const once = await tracedRun({ recordContent: true }, { inputMessages: "new" });
		const [first, second] = once.byName("chat scripted-model");
		expect(JSON.parse(String(first?.attributes["gen_ai.system_instructions"]))).toEqual(instructions);
		expect(second?.attributes["gen_ai.system_instructions"]).toBeUndefined();
	});

	it("a chat span's input is what the model was sent: after transformContext, without a refused reply — SPEC X3, C1, C3", async () => {
		const t = tracing();
		const secret = "sk-proj-0123456789abcdef0123456789abcdef";
		const refused = {
			...assistant([{ type: "text", text: "REFUSED-TEXT" }], "error"),
			stopDetails: { type: "refusal" as const },
		};
		await runScript([{ content: [call("echo", { text: secret })] }, textReply("done")], {
			messages: [{ role: "user", content: "first", timestamp: 0 }, refused],
			tools: [echoTool("echo")],
			config: {
				// The host scrubs tool results before they leave for the model.
				transformContext: (messages) =>
					messages.map((m) =>
						m.role === "toolResult" ? { ...m, content: [{ type: "text" as const, text: "[scrubbed]" }] } : m,
					),
				telemetry: { recordContent: true, sinks: [openTelemetry(t.tracer)] },
			},
		});
		const inputs = t
			.byName("chat scripted-model")
			.map((span) => String(span.attributes["gen_ai.input.messages"]));
		expect(inputs).toHaveLength(2);
		for (const input of inputs) expect(input).not.toContain("REFUSED-TEXT");
		expect(inputs[1]).not.toContain(`echo:${secret}`);
		expect(inputs[1]).toContain("[scrubbed]");
	});

	describe('inputMessages: "new" records each input message once a run: content linear in the run\'s length — SPEC X3', () => {
		const turns = 30;
		const long = "x".repeat(1000);
		const manyTurns = (): ScriptedReply[] => [
			...Array.from({ length: turns }, (_, i) => ({ content: [call("echo", { text: `${long}${i}` })] })),
			textReply("done"),
		];
		type Hook = AgentLoopConfig["transformContext"];
		async function chatInputs(inputMessages: "new" | "all" | undefined, transformContext: Hook) {
			const t = tracing();
			await runScript(manyTurns(), {
				tools: [echoTool("echo")],
				config: {
					...(transformContext ? { transformContext } : {}),
					telemetry: { recordContent: true, sinks: [openTelemetry(t.tracer, { inputMessages })] },
				},
			});
			return t.byName("chat scripted-model").map((span) => ({
				json: String(span.attributes["gen_ai.input.messages"]),
				omitted: span.attributes["capstan.input.messages_omitted"],
			}));
		}
		const hooks: [string, Hook][] = [
			["the loop's own messages", undefined],
			["a transformContext that copies every message", (messages) => messages.map((m) => ({ ...m }))],
			["a transformContext that keeps a sliding window", (messages) => messages.slice(-3)],
		];

		it.each(hooks)(
			"%s: each span's whole input is the previous one's first messages plus what it recorded",
			async (_, hook) => {
				const all = await chatInputs("all", hook);
				expect(await chatInputs(undefined, hook)).toEqual(all); // "all" is the default
				const spans = await chatInputs("new", hook);
				expect(spans).toHaveLength(turns + 1);
				let input: unknown[] = [];
				spans.forEach((span, i) => {
					expect(typeof span.omitted).toBe("number");
					input = [...input.slice(0, span.omitted as number), ...JSON.parse(span.json)];
					expect(input, `call ${i}`).toEqual(JSON.parse(all[i]?.json ?? ""));
				});
			},
		);

		it.each(hooks.slice(0, 2))(
			"%s: the recorded bytes grow linearly, about one transcript per run, where full inputs are quadratic",
			async (_, hook) => {
				const bytes = (spans: { json: string }[]) => spans.reduce((sum, span) => sum + span.json.length, 0);
				const all = await chatInputs("all", hook);
				const transcript = all.at(-1)?.json.length ?? 0; // the last call's request: the whole run
				expect(transcript).toBeGreaterThan(turns * long.length);
				expect(bytes(all)).toBeGreaterThan((turns / 3) * transcript); // each call resent everything before it
				// "new": every message is recorded once, plus one bracket pair per span.
				expect(bytes(await chatInputs("new", hook))).toBeLessThanOrEqual(transcript + 2 * (turns + 1));
			},
		);
	});

	it("server.address and server.port name the base URL's host, never its credentials, query or headers — SPEC E3", async () => {
		const t = tracing();
		const scripted = scriptedModel([textReply("hi")]);
		const agent = new Agent({
			model: {
				...scripted.model,
				baseUrl: "https://proxyuser:pwSENTINEL99@gateway.example:8443/v1?key=qSENTINEL77",
				headers: { authorization: "Bearer hSENTINEL55" },
			},
			streamFn: scripted.stream,
			streamOptions: { apiKey: "kSENTINEL33" },
			telemetry: { recordContent: true, sinks: [openTelemetry(t.tracer)] },
		});
		await agent.prompt("hello");
		expect(t.one("invoke_agent").attributes).toMatchObject({
			"server.address": "gateway.example",
			"server.port": 8443,
		});
		const exported = t.spans().map((span) => ({
			name: span.name,
			attributes: span.attributes,
			events: span.events,
			status: span.status,
		}));
		expect(JSON.stringify(exported)).not.toContain("SENTINEL");
	});

	it("no system prompt, no gen_ai.system_instructions (not one empty part) — SPEC X3", async () => {
		const t = tracing();
		const scripted = scriptedModel([textReply("hi")]);
		const agent = new Agent({
			model: scripted.model,
			streamFn: scripted.stream,
			telemetry: { recordContent: true, sinks: [openTelemetry(t.tracer)] },
		});
		await agent.prompt("hello");
		expect(t.one("invoke_agent").attributes["gen_ai.system_instructions"]).toBeUndefined();
	});

	it("a reply the reply guard discarded has its own chat span but is no later call's input — SPEC X3, X4", async () => {
		const t = tracing();
		await runScript(
			[textReply("LEAKED <|channel|>"), { content: [call("echo", { text: "a" })] }, textReply("done")],
			{
				tools: [echoTool("echo")],
				config: {
					replyGuard: () => ({
						check: (reply, attempt) =>
							attempt === 0 && JSON.stringify(reply.content).includes("LEAKED")
								? { type: "retry", discarded: reply }
								: { type: "commit", message: reply },
					}),
					telemetry: { recordContent: true, sinks: [openTelemetry(t.tracer)] },
				},
			},
		);
		const chats = t.byName("chat scripted-model");
		expect(chats).toHaveLength(3);
		expect(String(chats[0]?.attributes["gen_ai.output.messages"])).toContain("LEAKED");
		for (const chat of chats)
			expect(String(chat.attributes["gen_ai.input.messages"])).not.toContain("LEAKED");
	});

	it("a reply guard's retry: each chat span has its call's temperature, the discarded reply's span says so — SPEC X3, X4", async () => {
		// Discards the first reply and retries it one degree warmer, as the Harmony guard does (in smaller steps).
		const guard: ReplyGuard = {
			check: (reply, attempt) =>
				attempt === 0 ? { type: "retry", discarded: reply } : { type: "commit", message: reply },
			retryOptions: (options, attempt) => ({ ...options, temperature: (options.temperature ?? 0) + attempt }),
		};
		const t = tracing();
		const records: ModelCallRecord[] = [];
		const { scripted } = await runScript([textReply("leaky"), textReply("clean")], {
			config: {
				replyGuard: () => guard,
				streamOptions: { temperature: 0.25, maxTokens: 500 },
				telemetry: { onModelCall: (record) => records.push(record), sinks: [openTelemetry(t.tracer)] },
			},
		});
		const sent = scripted.calls.map((call) => call.options.temperature);
		expect(sent).toEqual([0.25, 1.25]);
		expect(records.map((record) => [record.request, record.discarded])).toEqual([
			[{ temperature: 0.25, maxTokens: 500 }, true],
			[{ temperature: 1.25, maxTokens: 500 }, undefined],
		]);
		const chats = t.byName("chat scripted-model");
		expect(chats.map((span) => span.attributes["gen_ai.request.temperature"])).toEqual(sent);
		expect(chats.map((span) => span.attributes["gen_ai.request.max_tokens"])).toEqual([500, 500]);
		expect(chats.map((span) => span.attributes["capstan.reply.discarded"])).toEqual([true, undefined]);
		// A discarded reply is no failure: the call itself succeeded.
		expect(chats.map((span) => span.status.code)).toEqual([SpanStatusCode.UNSET, SpanStatusCode.UNSET]);
		// The run span keeps the run's configured settings.
		expect(t.one("invoke_agent").attributes["gen_ai.request.temperature"]).toBe(0.25);
	});

	it("error status with error.type: a failed model call, an aborted tool, an aborted run — SPEC X3", async () => {
		vi.useFakeTimers();
		const t = tracing();
		const controller = new AbortController();
		const { done } = startScript([{ content: [call("slow", { text: "s" })] }], {
			tools: [echoTool("slow", { ms: 1000 })],
			signal: controller.signal,
			config: { now: () => Date.now(), telemetry: { sinks: [openTelemetry(t.tracer)] } },
		});
		await vi.advanceTimersByTimeAsync(100);
		controller.abort("user cancelled");
		await vi.runAllTimersAsync();
		await done;
		const tool = t.one("execute_tool slow");
		expect(tool.status.code).toBe(SpanStatusCode.ERROR);
		expect(tool.attributes).toMatchObject({ "error.type": "aborted", "capstan.tool.status": "aborted" });
		const root = t.one("invoke_agent");
		expect(root.status).toEqual({ code: SpanStatusCode.ERROR, message: "user cancelled" });
		expect(root.attributes["error.type"]).toBe("aborted");
		// Span times come from the run's clock (SPEC L13): the tool ran 100 ms before the abort.
		const ms = (time: [number, number]) => time[0] * 1000 + time[1] / 1e6;
		expect(ms(tool.endTime) - ms(tool.startTime)).toBe(100);

		const failed = tracing();
		await runScript([{ error: { message: "slow down", kind: "rate_limit" } }], {
			config: { telemetry: { sinks: [openTelemetry(failed.tracer)] } },
		});
		const chat = failed.one("chat scripted-model");
		expect(chat.status).toEqual({ code: SpanStatusCode.ERROR, message: "slow down" });
		expect(chat.attributes).toMatchObject({
			"error.type": "rate_limit",
			"gen_ai.response.finish_reasons": ["error"],
		});
		expect(failed.one("invoke_agent").attributes["error.type"]).toBe("rate_limit");
	});

	it("an abort mid-stream or amid parallel tools ends every span it started, at the abort — SPEC X3, A1, A3", async () => {
		const cases: [string, ScriptedReply[], AgentTool[]][] = [
			["a streaming reply", [{ ...textReply("never finishes"), hang: true }], []],
			[
				"two tools running",
				[{ content: [call("slow", { text: "a" }), call("slow", { text: "b" })] }],
				[echoTool("slow", { ms: 1000 })],
			],
		];
		for (const [label, replies, tools] of cases) {
			vi.useFakeTimers();
			const open = new Set<string>();
			const exporter = new InMemorySpanExporter();
			const provider = new BasicTracerProvider({
				spanProcessors: [
					{
						onStart: (span) => open.add(span.spanContext().spanId),
						onEnd: (span) => open.delete(span.spanContext().spanId),
						forceFlush: async () => {},
						shutdown: async () => {},
					},
					new SimpleSpanProcessor(exporter),
				],
			});
			const controller = new AbortController();
			const { done } = startScript(replies, {
				tools,
				signal: controller.signal,
				config: { now: () => Date.now(), telemetry: { sinks: [openTelemetry(provider.getTracer("t"))] } },
			});
			await vi.advanceTimersByTimeAsync(100);
			controller.abort("user cancelled");
			await vi.runAllTimersAsync();
			await done;
			vi.useRealTimers();
			expect(open.size, label).toBe(0);
			const spans = exporter.getFinishedSpans();
			const root = spans.find((span) => span.name === "invoke_agent");
			// The spans the abort cut short end with the run, 100 ms in (the run's clock).
			const cut = spans.filter((span) => span !== root && span.attributes["error.type"] === "aborted");
			expect(cut.map((span) => span.name).sort(), label).toEqual(
				tools.length ? ["execute_tool slow", "execute_tool slow"] : ["chat scripted-model"],
			);
			for (const span of cut) expect(span.endTime, `${label}: ${span.name}`).toEqual(root?.endTime);
		}
	});

	it("a model call cut by the run's deadline is a deadline on its chat span, as on the run span — SPEC X3, A7", async () => {
		vi.useFakeTimers();
		const t = tracing();
		const records: ModelCallRecord[] = [];
		const { done } = startScript([{ ...textReply("never finishes"), hang: true }], {
			config: {
				now: () => Date.now(),
				deadline: Date.now() + 500,
				telemetry: { onModelCall: (record) => records.push(record), sinks: [openTelemetry(t.tracer)] },
			},
		});
		await vi.advanceTimersByTimeAsync(500);
		await vi.runAllTimersAsync();
		const { events } = await done;
		expect(events.at(-1)).toMatchObject({ type: "agent_end", outcome: { type: "deadline" } });
		// The reply itself is committed as aborted (SPEC A7); the record says why.
		expect(records).toMatchObject([{ stopReason: "aborted", stopDetail: "deadline" }]);
		const root = t.one("invoke_agent");
		expect(root.status).toEqual({ code: SpanStatusCode.ERROR, message: "deadline exceeded" });
		expect(root.attributes["error.type"]).toBe("deadline");
		const chat = t.one("chat scripted-model");
		expect(chat.status).toEqual(root.status);
		expect(chat.attributes).toMatchObject({
			"error.type": "deadline",
			"capstan.stop_reason": "aborted",
			"capstan.stop_detail": "deadline",
		});

		// A caller's abort is still an abort.
		const aborted = tracing();
		const controller = new AbortController();
		const run = startScript([{ ...textReply("never finishes"), hang: true }], {
			signal: controller.signal,
			config: {
				now: () => Date.now(),
				deadline: Date.now() + 500,
				telemetry: { sinks: [openTelemetry(aborted.tracer)] },
			},
		});
		await vi.advanceTimersByTimeAsync(100);
		controller.abort("user cancelled");
		await vi.runAllTimersAsync();
		await run.done;
		expect(aborted.one("chat scripted-model").attributes["error.type"]).toBe("aborted");
		expect(aborted.one("invoke_agent").attributes["error.type"]).toBe("aborted");
	});

	it("a tool call cut by the run's deadline is a deadline on its execute_tool span, as on the run span — SPEC X3, A7", async () => {
		vi.useFakeTimers();
		const t = tracing();
		const records: ToolCallRecord[] = [];
		const { done } = startScript([{ content: [call("slow", { text: "s" })] }], {
			tools: [echoTool("slow", { ms: 1000 })],
			config: {
				now: () => Date.now(),
				deadline: Date.now() + 500,
				telemetry: { onToolCall: (record) => records.push(record), sinks: [openTelemetry(t.tracer)] },
			},
		});
		await vi.advanceTimersByTimeAsync(500);
		await vi.runAllTimersAsync();
		const { events } = await done;
		expect(events.at(-1)).toMatchObject({ type: "agent_end", outcome: { type: "deadline" } });
		// The call itself ends as aborted (SPEC A7, A3); the record says why.
		expect(records).toMatchObject([{ status: "aborted", stopDetail: "deadline" }]);
		const root = t.one("invoke_agent");
		expect(root.attributes["error.type"]).toBe("deadline");
		const tool = t.one("execute_tool slow");
		expect(tool.status).toEqual(root.status);
		expect(tool.attributes).toMatchObject({
			"error.type": "deadline",
			"capstan.tool.status": "aborted",
			"capstan.stop_detail": "deadline",
		});

		// A caller's abort before the deadline is still an abort, with no stop detail.
		const aborted = tracing();
		const abortedRecords: ToolCallRecord[] = [];
		const controller = new AbortController();
		const run = startScript([{ content: [call("slow", { text: "s" })] }], {
			tools: [echoTool("slow", { ms: 1000 })],
			signal: controller.signal,
			config: {
				now: () => Date.now(),
				deadline: Date.now() + 500,
				telemetry: {
					onToolCall: (record) => abortedRecords.push(record),
					sinks: [openTelemetry(aborted.tracer)],
				},
			},
		});
		await vi.advanceTimersByTimeAsync(100);
		controller.abort("user cancelled");
		await vi.runAllTimersAsync();
		await run.done;
		expect(abortedRecords[0]?.stopDetail).toBeUndefined();
		expect(aborted.one("execute_tool slow").attributes["error.type"]).toBe("aborted");
		expect(aborted.one("invoke_agent").attributes["error.type"]).toBe("aborted");
	});

	it("model and tool steps run inside their spans: spans the provider or the tool create nest under chat / execute_tool — SPEC X3, L13", async () => {
		context.setGlobalContextManager(new AsyncLocalContextManager());
		try {
			const t = tracing();
			const scripted = scriptedModel([{ content: [call("lookup", { text: "q" })] }, textReply("ok")]);
			const lookup: AgentTool = {
				...echoTool("lookup"),
				execute: async () => {
					t.tracer.startSpan("db query").end(); // a tool's own instrumentation
					return { content: [{ type: "text", text: "found" }] };
				},
			};
			const steps: string[] = [];
			await runScript([], {
				tools: [lookup],
				config: {
					model: scripted.model,
					streamFn: (model, ctx, options) => {
						t.tracer.startSpan("http request").end(); // a provider's HTTP client instrumentation
						return scripted.stream(model, ctx, options);
					},
					// The host's step runner still sees every step (SPEC L13); the span scope runs inside it.
					runStep: (step, fn) => {
						steps.push(step.kind);
						return fn();
					},
					telemetry: { sinks: [openTelemetry(t.tracer)] },
				},
			});
			expect(steps).toEqual(["model", "tool", "model"]);
			const parentName = (span: ReadableSpan) =>
				t.spans().find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId)?.name;
			expect(t.byName("http request").map(parentName)).toEqual([
				"chat scripted-model",
				"chat scripted-model",
			]);
			expect(parentName(t.one("db query"))).toBe("execute_tool lookup");
			expect(parentName(t.one("execute_tool lookup"))).toBe("invoke_agent");
			expect(t.one("execute_tool lookup").attributes["capstan.tool.status"]).toBe("ok");
		} finally {
			context.disable();
		}
	});

	it("a provider retry stays inside its call's one chat span, which ends as the call that succeeded — SPEC X3, A8", async () => {
		// The conventions: a span covers the logical operation with all its automatic retries.
		const server = await serve(
			jsonResponse(429, { error: { message: "busy, try later" } }, { "retry-after": "0" }),
			{ type: "sse", body: textBody("anthropic-messages"), split: false },
		);
		const t = tracing();
		const retries: RetryInfo[] = [];
		await runScript([], {
			config: {
				model: testModel("anthropic-messages", server.baseUrl),
				streamFn: stream,
				streamOptions: { apiKey: "k", ...FAST, onRetry: (info) => retries.push(info) },
				telemetry: { sinks: [openTelemetry(t.tracer)] },
			},
		});
		expect(retries.map((retry) => retry.errorKind)).toEqual(["rate_limit"]);
		expect(server.requests).toHaveLength(2);
		const chat = t.one(`chat ${testModel("anthropic-messages", server.baseUrl).id}`);
		expect(chat.status.code).toBe(SpanStatusCode.UNSET);
		expect(chat.attributes["error.type"]).toBeUndefined();
		expect(chat.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
		expect(t.one("invoke_agent").status.code).toBe(SpanStatusCode.UNSET);
	});

	it.each([
		{ api: "anthropic-messages", field: "max_tokens", compat: {}, sent: 64_000 }, // the ceiling: a cap is required
		{ api: "openai-responses", field: "max_output_tokens", compat: { defaultMaxTokens: 4096 }, sent: 4096 },
		{ api: "openai-responses", field: "max_output_tokens", compat: {}, sent: undefined }, // the server's default
	] as const)(
		"gen_ai.request.max_tokens is the cap the $api request carried ($sent), with no maxTokens set — SPEC X3",
		async ({ api, field, compat, sent }) => {
			const server = await serve({ type: "sse", body: textBody(api), split: false });
			const t = tracing();
			const model = testModel(api, server.baseUrl);
			model.compat = { ...model.compat, ...compat };
			await runScript([], {
				config: {
					model,
					streamFn: stream,
					streamOptions: { apiKey: "k", ...FAST },
					telemetry: { sinks: [openTelemetry(t.tracer)] },
				},
			});
			const body = JSON.parse(server.requests[0]?.body ?? "{}") as Record<string, unknown>;
			expect(body[field]).toBe(sent);
			expect(t.one(`chat ${model.id}`).attributes["gen_ai.request.max_tokens"]).toBe(sent);
			expect(t.one("invoke_agent").attributes["gen_ai.request.max_tokens"]).toBe(sent);
		},
	);

	it("a sampled-out run exports nothing and still completes", async () => {
		const exporter = new InMemorySpanExporter();
		const provider = new BasicTracerProvider({
			sampler: new AlwaysOffSampler(),
			spanProcessors: [new SimpleSpanProcessor(exporter)],
		});
		const { events } = await runScript(script, {
			tools: [echoTool("echo"), failing, echoTool("guarded")],
			config: { telemetry: { sinks: [openTelemetry(provider.getTracer("off"))], recordContent: true } },
		});
		expect(events.at(-1)).toMatchObject({ type: "agent_end", summary: { modelCalls: 2, toolCalls: 3 } });
		expect(exporter.getFinishedSpans()).toEqual([]);
	});

	it("the run span joins the host's trace through parentContext", async () => {
		const t = tracing();
		const host = t.tracer.startSpan("http request");
		await runScript([textReply("hi")], {
			config: {
				telemetry: {
					sinks: [openTelemetry(t.tracer, { parentContext: () => trace.setSpan(ROOT_CONTEXT, host) })],
				},
			},
		});
		host.end();
		expect(t.one("invoke_agent").parentSpanContext?.spanId).toBe(host.spanContext().spanId);
	});

	it("a throwing sink is reported and the run completes — SPEC X3", async () => {
		const errors: unknown[] = [];
		const { events } = await runScript([textReply("hi")], {
			config: {
				telemetry: {
					sinks: [
						{
							startRun: () => ({
								modelCall: () => {
									throw new Error("exporter down");
								},
								toolCall: () => {},
								endRun: () => {},
							}),
						},
					],
					onError: (error) => errors.push(error),
				},
			},
		});
		expect(events.at(-1)).toMatchObject({ type: "agent_end", outcome: { type: "completed" } });
		expect(errors).toHaveLength(1);
	});
});

describe("@opentelemetry/api is an optional peer — SPEC X3", () => {
	it("only the capstan/otel entry imports it at runtime; the core never loads it", async () => {
		const { readdir, readFile } = await import("node:fs/promises");
		const files = await readdir(new URL("../../src/", import.meta.url), { recursive: true });
		const runtimeImporters: string[] = [];
		for (const file of files.filter((f) => f.endsWith(".ts"))) {
			const source = await readFile(new URL(`../../src/${file}`, import.meta.url), "utf8");
			const runtime = /import\s+(?!type\b)[^;]*from\s+"@opentelemetry\/api"/.test(source);
			if (runtime) runtimeImporters.push(file);
		}
		expect(runtimeImporters).toEqual(["telemetry/otel.ts"]);
		const index = await readFile(new URL("../../src/index.ts", import.meta.url), "utf8");
		expect(index).not.toMatch(/otel/);
	});
});

/** A minimal AsyncLocalStorage context manager (what `@opentelemetry/context-async-hooks` provides). */
class AsyncLocalContextManager implements ContextManager {
	private readonly storage = new AsyncLocalStorage<Context>();
	active(): Context {
		return this.storage.getStore() ?? ROOT_CONTEXT;
	}
	with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
		ctx: Context,
		fn: F,
		thisArg?: ThisParameterType<F>,
		...args: A
	): ReturnType<F> {
		return this.storage.run(ctx, () => fn.apply(thisArg, args));
	}
	bind<T>(_ctx: Context, target: T): T {
		return target;
	}
	enable(): this {
		return this;
	}
	disable(): this {
		this.storage.disable();
		return this;
	}
}
