/**
 * The reference loop: not a library and not the floor, but an answer to "what could W4 cost an agent loop
 * that does what capstan observably does?". It does the work of capstan's W4 run on its happy path with no
 * layers: an agent object that keeps the transcript and hands every event to its subscribers; the same
 * events in the same order (`bench/test/smoke.test.ts` compares them with capstan's); every reply built as
 * immutable snapshots that share their unchanged blocks; each call's arguments checked against its tool's
 * JSON Schema; one abort signal for the run and one per call, the calls' following the run's; results
 * checked and turned into tool-result messages. What it leaves out — hooks, steering, approval, retries,
 * deadlines, telemetry, ordering between calls, anything but the flat schemas the bench uses — is what
 * capstan's users also get. `npm run bench:instructions -- --only=capstan,reference` and
 * `worker.js --lib=reference` run it; the tables of `npm run bench` do not (docs/performance.md).
 */
import type { Conversation, Driver } from "./adapters/types.js";
import type { FakeSource } from "./source.js";
import type { BenchTool } from "./tools.js";

type Args = Record<string, unknown>;
interface TextBlock {
	type: "text";
	text: string;
}
interface CallBlock {
	type: "toolCall";
	id: string;
	name: string;
	arguments: Args;
}
type Block = TextBlock | CallBlock;
interface Message {
	role: "user" | "assistant" | "toolResult";
	content: Block[];
	stopReason?: "stop" | "toolUse";
	[key: string]: unknown;
}
/** An event as subscribers get it; `type` is capstan's event name. */
interface ReferenceEvent {
	type: string;
	message?: Message;
	assistantMessageEvent?: { type: string };
	[key: string]: unknown;
}

interface Tool {
	name: string;
	description: string;
	parameters: { type: "object"; properties: Record<string, { type: string }>; required: string[] };
	execute(id: string, args: Args, signal: AbortSignal): Promise<{ content: TextBlock[] }>;
}

/** The bench's flat schemas: every property required, of its JSON type, and no others. */
function invalidArguments(tool: Tool, args: Args): string | undefined {
	const { properties } = tool.parameters;
	for (const key in properties) {
		const type = properties[key]!.type;
		if (!(key in args)) return `${tool.name}: missing "${key}"`;
		if (typeof args[key] !== type) return `${tool.name}: "${key}" must be a ${type}`;
	}
	for (const key in args) if (!(key in properties)) return `${tool.name}: unknown property "${key}"`;
	return undefined;
}

class ReferenceAgent {
	readonly messages: Message[] = [];
	streaming: Message | undefined;
	readonly running = new Set<string>();
	private readonly listeners: ((event: ReferenceEvent) => void)[] = [];

	constructor(
		private readonly source: FakeSource,
		private readonly tools: readonly Tool[],
	) {}

	subscribe(listener: (event: ReferenceEvent) => void): void {
		this.listeners.push(listener);
	}

	private emit(event: ReferenceEvent): void {
		if (event.type === "message_update") this.streaming = event.message;
		else if (event.type === "message_end") {
			this.streaming = undefined;
			this.messages.push(event.message!);
		} else if (event.type === "tool_execution_start") this.running.add(event.toolCallId as string);
		else if (event.type === "tool_execution_end") this.running.delete(event.toolCallId as string);
		for (let i = 0; i < this.listeners.length; i++) this.listeners[i]!(event);
	}

	async prompt(text: string): Promise<void> {
		const run = new AbortController();
		const added = this.messages.length;
		this.emit({ type: "agent_start" });
		let inbound: Message[] = [{ role: "user", content: [{ type: "text", text }], timestamp: Date.now() }];
		for (;;) {
			this.emit({ type: "turn_start" });
			for (const message of inbound) {
				this.emit({ type: "message_start", message });
				this.emit({ type: "message_end", message });
			}
			const reply = await this.streamReply(run.signal);
			const calls = reply.content.filter((block): block is CallBlock => block.type === "toolCall");
			const results = calls.length > 0 ? await this.runCalls(calls, run.signal) : [];
			for (const message of results) {
				this.emit({ type: "message_start", message });
				this.emit({ type: "message_end", message });
			}
			this.emit({ type: "turn_end", message: reply, toolResults: results });
			if (results.length === 0) break;
			inbound = [];
		}
		const messages = this.messages.slice(added);
		this.emit({ type: "agent_end", messages, outcome: { kind: "completed" } });
	}

	/** One model call: the source's events folded into snapshots, each re-emitted as a `message_update`. */
	private async streamReply(signal: AbortSignal): Promise<Message> {
		// What a provider would serialize; the fake source has no use for it, but every library builds one.
		const request = {
			messages: this.messages.slice(),
			tools: this.tools.map(({ name, description, parameters }) => ({ name, description, parameters })),
			signal,
		};
		let snapshot: Message = {
			role: "assistant",
			content: [],
			api: "bench",
			provider: "bench",
			model: "bench-1",
			usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 },
			stopReason: "stop",
			timestamp: Date.now(),
		};
		const put = (index: number, block: Block): void => {
			const content = snapshot.content.slice();
			content[index] = block;
			snapshot = { ...snapshot, content };
		};
		const update = (assistantMessageEvent: { type: string; [key: string]: unknown }): void => {
			assistantMessageEvent.partial = snapshot;
			this.emit({ type: "message_update", message: snapshot, assistantMessageEvent });
		};
		this.emit({ type: "message_start", message: snapshot });
		const callAt = new Map<string, number>();
		const argumentText = new Map<string, string>();
		// The text each call's streamed arguments were last parsed from: the end reuses that parse.
		const parsedText = new Map<string, string>();
		let textAt = -1;
		void request;
		for await (const event of this.source.next()) {
			if (signal.aborted) break;
			switch (event.type) {
				case "text-start":
					textAt = snapshot.content.length;
					put(textAt, { type: "text", text: "" });
					update({ type: "text_start", contentIndex: textAt });
					break;
				case "text-delta":
					put(textAt, { type: "text", text: (snapshot.content[textAt] as TextBlock).text + event.delta });
					update({ type: "text_delta", contentIndex: textAt, delta: event.delta });
					break;
				case "text-end":
					update({
						type: "text_end",
						contentIndex: textAt,
						content: (snapshot.content[textAt] as TextBlock).text,
					});
					break;
				case "tool-start": {
					const at = snapshot.content.length;
					callAt.set(event.id, at);
					argumentText.set(event.id, "");
					put(at, { type: "toolCall", id: event.id, name: event.name, arguments: {} });
					update({ type: "toolcall_start", contentIndex: at, id: event.id, name: event.name });
					break;
				}
				case "tool-delta": {
					const at = callAt.get(event.id)!;
					const json = argumentText.get(event.id)! + event.delta;
					argumentText.set(event.id, json);
					// Partial arguments only when the text so far is a whole object (W4's one-delta calls): no
					// incremental parser, and no quadratic re-parsing of a long argument text either.
					const block = snapshot.content[at] as CallBlock;
					let args = block.arguments;
					if (json.endsWith("}"))
						try {
							args = JSON.parse(json) as Args;
							parsedText.set(event.id, json);
						} catch {}
					if (args !== block.arguments) put(at, { ...block, arguments: args });
					update({ type: "toolcall_delta", contentIndex: at, delta: event.delta, arguments: args });
					break;
				}
				case "tool-end": {
					const at = callAt.get(event.id)!;
					const block = snapshot.content[at] as CallBlock;
					const json = argumentText.get(event.id)!;
					let args = block.arguments;
					if (parsedText.get(event.id) !== json) {
						args = {};
						try {
							args = JSON.parse(json) as Args;
						} catch {}
					}
					const toolCall: CallBlock = { type: "toolCall", id: block.id, name: block.name, arguments: args };
					put(at, toolCall);
					update({ type: "toolcall_end", contentIndex: at, toolCall });
					break;
				}
				case "finish": {
					const { input, output } = event.usage;
					const usage = { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output };
					snapshot = { ...snapshot, usage, stopReason: event.reason === "tool-use" ? "toolUse" : "stop" };
					break;
				}
			}
		}
		this.emit({ type: "message_end", message: snapshot });
		return snapshot;
	}

	/** The reply's calls, all at once; resolves with one result per call, in call order. */
	private runCalls(calls: readonly CallBlock[], runSignal: AbortSignal): Promise<Message[]> {
		const results: Message[] = new Array(calls.length);
		const controllers: (AbortController | undefined)[] = new Array(calls.length);
		let remaining = calls.length;
		return new Promise((resolve) => {
			const settle = (i: number, text: string, isError: boolean, status: string): void => {
				if (results[i]) return;
				const call = calls[i]!;
				const content: TextBlock[] = [{ type: "text", text }];
				const message: Message = {
					role: "toolResult",
					toolCallId: call.id,
					toolName: call.name,
					content,
					isError,
					timestamp: Date.now(),
				};
				results[i] = message;
				controllers[i] = undefined;
				const result = { content, details: undefined, isError };
				this.emit({
					type: "tool_execution_end",
					toolCallId: call.id,
					toolName: call.name,
					result,
					isError,
					status,
				});
				if (--remaining === 0) {
					runSignal.removeEventListener("abort", onAbort);
					resolve(results);
				}
			};
			const onAbort = (): void => {
				for (let i = 0; i < calls.length; i++) {
					const controller = controllers[i];
					settle(i, "tool execution was aborted", true, "aborted");
					controller?.abort(runSignal.reason);
				}
			};
			runSignal.addEventListener("abort", onAbort);
			for (let i = 0; i < calls.length; i++) {
				const call = calls[i]!;
				const tool = this.tools.find((t) => t.name === call.name);
				this.emit({
					type: "tool_execution_start",
					toolCallId: call.id,
					toolName: call.name,
					args: call.arguments,
				});
				const problem = tool ? invalidArguments(tool, call.arguments) : `unknown tool "${call.name}"`;
				if (problem !== undefined || !tool) {
					settle(i, problem!, true, "error");
					continue;
				}
				const controller = new AbortController();
				controllers[i] = controller;
				let pending: Promise<{ content: TextBlock[] }>;
				try {
					pending = tool.execute(call.id, call.arguments, controller.signal);
				} catch (error) {
					pending = Promise.reject(error);
				}
				pending.then(
					(result) => {
						const ok = Array.isArray(result?.content) && result.content.every((b) => b?.type === "text");
						settle(
							i,
							ok ? result.content.map((b) => b.text).join("") : "the tool returned no content",
							!ok,
							ok ? "ok" : "error",
						);
					},
					(error: unknown) =>
						settle(i, error instanceof Error ? error.message : String(error), true, "error"),
				);
			}
		});
	}
}

function toReferenceTool(t: BenchTool): Tool {
	const properties: Record<string, { type: string }> = {};
	for (const [key, type] of Object.entries(t.fields)) properties[key] = { type };
	return {
		name: t.name,
		description: t.description,
		parameters: { type: "object", properties, required: Object.keys(t.fields) },
		execute: async (_id, args) => ({ content: [{ type: "text", text: await t.run(args) }] }),
	};
}

/** Runs the conversation through the reference agent; `onEvent` sees every event it emits. */
export const runReference: Driver = async ({ source, tools, onTextDelta, onEvent }: Conversation) => {
	const agent = new ReferenceAgent(source, tools.map(toReferenceTool));
	if (onTextDelta)
		agent.subscribe((event) => {
			if (event.type === "message_update" && event.assistantMessageEvent?.type === "text_delta")
				onTextDelta();
		});
	if (onEvent) agent.subscribe(onEvent);
	await agent.prompt("go");
	const last = agent.messages.at(-1);
	if (last?.role !== "assistant" || last.stopReason !== "stop")
		throw new Error("the reference run did not end with a final reply");
};
