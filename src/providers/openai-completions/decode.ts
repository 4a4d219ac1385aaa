/**
 * Chat Completions stream decoding: SSE events → `AssistantMessageBuilder` calls (rule E2). One decoder per
 * attempt. It understands every dialect in the recorded fixtures without knowing which server it talks to:
 *
 * - reasoning in `reasoning_content` (DeepSeek, xAI, llama.cpp), `reasoning` (OpenRouter, Ollama, Groq) or
 *   `reasoning_details` (OpenRouter, with signatures and encrypted entries), and Mistral's array `content`
 *   with `thinking` parts — the same text is never taken twice from one delta;
 * - tool calls keyed by `index` (a first call may have index 1), by `id` when `index` is missing (Mistral),
 *   a new `id` on a known index starting a new call, empty-string ids ignored (Alibaba);
 * - usage in the last chunk, in every chunk (Perplexity, cumulative), in `x_groq.usage`, in the finishing
 *   chunk (Mistral) or after a second finishing chunk (OpenRouter); a later `"usage": null` erases nothing;
 * - an `error` object inside a chunk (OpenRouter) or a named `event: error` frame (Groq): thrown as a
 *   classified `ProviderError`, so the runner commits the content so far with `stopReason: "error"` (a
 *   JSON error body written into the stream without `data:` is found by `stream.ts` when the body ends);
 * - chunks without choices (Azure's `prompt_filter_results`, the `moderation` chunk) are skipped.
 *
 * The reply finishes at `[DONE]`, or at the end of the body once a `finish_reason` was seen; a body that ends
 * without either is an error ("stream ended unexpectedly").
 */
import type { AssistantMessageBuilder } from "../../core/assistant-builder.js";
import type { JsonValue } from "../../core/messages.js";
import type { Model } from "../../core/model.js";
import {
	type BodyClassifier,
	classifyStreamError,
	kindForStatus,
	ProviderError,
	tryParseJson,
} from "../base/errors.js";
import { parseEventJson } from "../base/run-stream.js";
import type { SseEvent } from "../base/sse.js";
import { finishWithStop, mapStopReason, type StopReasonTable } from "../base/stop-reason.js";
import { buildUsage } from "../base/usage.js";
import { REASONING_DETAILS_BLOCK, ReasoningDetailsLog } from "./reasoning-details.js";
import { OPENAI_COMPLETIONS_API } from "./request.js";
import { isWireUsage, normalizeUsage } from "./usage.js";

/** rule M4: Chat Completions `finish_reason` values; anything else maps to `error` with the raw value. */
export const FINISH_REASONS: StopReasonTable = {
	stop: { reason: "stop" },
	length: { reason: "length" },
	tool_calls: { reason: "toolUse" },
	function_call: { reason: "toolUse" },
	content_filter: {
		reason: "error",
		details: { type: "content_filter" },
		errorMessage: "the provider's content filter blocked the response",
	},
};

/**
 * OpenAI-style error bodies (HTTP or in-stream): `context_length_exceeded` → `context_overflow`,
 * `insufficient_quota` → a `rate_limit` not worth retrying, `rate_limit_exceeded` → `rate_limit`; an in-stream
 * error with a numeric HTTP-like `code` (OpenRouter) is classified like that status.
 */
export const classifyOpenAIErrorBody: BodyClassifier = (body, text, status) => {
	const record = asRecord(body);
	const error = asRecord(record?.error) ?? record;
	const code = error?.code;
	const type = error?.type;
	const is = (value: string): boolean => code === value || type === value;
	if (is("context_length_exceeded") || /context_length_exceeded|maximum context length/i.test(text))
		return { kind: "context_overflow", retryable: false };
	if (is("insufficient_quota")) return { kind: "rate_limit", retryable: false };
	if (is("rate_limit_exceeded") || is("tokens") || is("requests")) return { kind: "rate_limit" };
	if (status === undefined && typeof code === "number" && code >= 400)
		return { kind: kindForStatus(code, text) };
	if (status === undefined && typeof code === "string" && /^\d{3}$/.test(code))
		return { kind: kindForStatus(Number(code), text) };
	return undefined;
};

interface CallState {
	id: string;
	name: string;
	/** Content index once started; -1 while the name is still unknown. */
	contentIndex: number;
	/** Argument text received before the call could start. */
	buffered: string;
}

type Part = Record<string, unknown>;

/** Decodes one Chat Completions response into a builder. */
export class ChatCompletionsDecoder {
	private current: { kind: "text" | "thinking"; index: number } | undefined;
	private lastThinking = -1;
	private lastText = -1;
	private readonly calls: CallState[] = [];
	private readonly byIndex = new Map<number, CallState>();
	private readonly byId = new Map<string, CallState>();
	private lastCall: CallState | undefined;
	private finishReason: string | undefined;
	private refused = false;
	private responseId = "";
	private citations: JsonValue[] | undefined;
	private readonly reasoningDetails = new ReasoningDetailsLog();

	constructor(
		private readonly builder: AssistantMessageBuilder,
		private readonly model: Pick<Model, "cost">,
	) {}

	/** Feed one SSE event. Returns true once the reply is finished (`[DONE]`). Throws `ProviderError`s. */
	push(event: SseEvent): boolean {
		if (event.data.trim() === "[DONE]") {
			this.finish();
			return true;
		}
		if (event.data.trim() === "") return false;
		// A named error frame (Groq) is an error whatever its payload looks like.
		if (event.event === "error") {
			const body = tryParseJson(event.data);
			throw classifyStreamError(asRecord(body)?.error ?? body, event.data, classifyOpenAIErrorBody);
		}
		const chunk = asRecord(parseEventJson(event.data));
		if (!chunk)
			throw new ProviderError("malformed_response", `unexpected stream chunk: ${event.data.slice(0, 200)}`);
		// Usage first: an error chunk may carry the usage of tokens already billed (OpenRouter).
		this.takeUsage(chunk.usage);
		this.takeUsage(asRecord(chunk.x_groq)?.usage);
		if (chunk.error !== undefined && chunk.error !== null)
			throw classifyStreamError(chunk.error, event.data, classifyOpenAIErrorBody);
		if (typeof chunk.id === "string" && chunk.id !== "" && this.responseId === "") {
			this.responseId = chunk.id;
			this.builder.setResponseId(chunk.id);
		}
		if (Array.isArray(chunk.citations)) this.citations = chunk.citations as JsonValue[];
		const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
		for (const raw of choices) {
			const choice = asRecord(raw);
			// Only the first choice is decoded (`n` > 1 is not supported); servers may omit `index`.
			if (!choice || (choice.index !== undefined && choice.index !== 0)) continue;
			this.takeUsage(choice.usage);
			const delta = asRecord(choice.delta);
			if (delta) this.takeDelta(delta);
			if (typeof choice.finish_reason === "string" && choice.finish_reason !== "")
				this.finishReason = choice.finish_reason;
		}
		return false;
	}

	/** The body ended without `[DONE]`: finish if a `finish_reason` arrived, else fail. */
	end(): void {
		this.finish();
	}

	/** Close every open block and map the finish reason; without one the reply never completed. */
	private finish(): void {
		if (this.finishReason === undefined)
			throw new ProviderError("network", "stream ended unexpectedly", { retryable: false });
		this.closeCurrent();
		for (const call of this.calls) {
			this.startCall(call);
			this.builder.endToolCall(call.contentIndex);
		}
		const details = this.reasoningDetails.details();
		if (details.length > 0)
			this.builder.addProviderBlock(OPENAI_COMPLETIONS_API, {
				type: REASONING_DETAILS_BLOCK,
				reasoning_details: details as unknown as JsonValue[],
			});
		if (this.citations && this.lastText >= 0)
			for (const url of this.citations) this.builder.addCitation(this.lastText, { type: "url", url });
		const stop = mapStopReason(this.finishReason, FINISH_REASONS);
		if (this.refused && stop.reason === "stop") {
			finishWithStop(this.builder, {
				reason: "error",
				details: { type: "refusal", raw: this.finishReason },
				errorMessage: "the model refused the request",
			});
			return;
		}
		finishWithStop(this.builder, stop);
	}

	private takeUsage(value: unknown): void {
		if (isWireUsage(value)) this.builder.setUsage(buildUsage(normalizeUsage(value), this.model));
	}

	private takeDelta(delta: Part): void {
		const reasoning = nonEmpty(delta.reasoning_content) ?? nonEmpty(delta.reasoning);
		if (reasoning !== undefined) this.appendThinking(reasoning);
		if (Array.isArray(delta.reasoning_details)) this.takeReasoningDetails(delta.reasoning_details, reasoning);
		if (typeof delta.content === "string") {
			if (delta.content !== "") this.appendText(delta.content);
		} else if (Array.isArray(delta.content)) this.takeContentParts(delta.content);
		const refusal = nonEmpty(delta.refusal);
		if (refusal !== undefined) {
			this.refused = true;
			this.appendText(refusal);
		}
		if (Array.isArray(delta.tool_calls))
			for (const call of delta.tool_calls) this.takeToolCall(asRecord(call));
	}

	private takeReasoningDetails(details: unknown[], alreadyTaken: string | undefined): void {
		for (const raw of details) {
			const detail = asRecord(raw);
			if (!detail) continue;
			this.reasoningDetails.add(detail);
			if (detail.type === "reasoning.encrypted") {
				const data = nonEmpty(detail.data);
				if (data !== undefined) {
					this.closeCurrent();
					this.builder.addRedactedThinking(data);
				}
				continue;
			}
			const text = nonEmpty(detail.text) ?? nonEmpty(detail.summary);
			if (alreadyTaken === undefined && text !== undefined) this.appendThinking(text);
			const signature = nonEmpty(detail.signature);
			if (signature !== undefined) {
				if (this.lastThinking < 0) this.appendThinking("");
				this.builder.appendThinkingSignature(this.lastThinking, signature);
			}
		}
	}

	/** Mistral magistral: `[{type:"thinking", thinking:[{type:"text", text}]}, {type:"text", text}]`. */
	private takeContentParts(parts: unknown[]): void {
		for (const raw of parts) {
			const part = asRecord(raw);
			if (!part) continue;
			if (part.type === "text") {
				const text = nonEmpty(part.text);
				if (text !== undefined) this.appendText(text);
			} else if (part.type === "thinking") {
				const thinking = part.thinking;
				if (typeof thinking === "string") {
					if (thinking !== "") this.appendThinking(thinking);
				} else if (Array.isArray(thinking)) {
					for (const inner of thinking) {
						const text = nonEmpty(asRecord(inner)?.text);
						if (text !== undefined) this.appendThinking(text);
					}
				}
			}
		}
	}

	private takeToolCall(delta: Part | undefined): void {
		if (!delta) return;
		const fn = asRecord(delta.function);
		const id = nonEmpty(delta.id);
		const name = nonEmpty(fn?.name);
		const args =
			typeof fn?.arguments === "string" ? fn.arguments : fn?.arguments ? JSON.stringify(fn.arguments) : "";
		const call = this.callFor(typeof delta.index === "number" ? delta.index : undefined, id);
		if (call.contentIndex < 0 && name !== undefined) call.name = name;
		if (call.contentIndex < 0 && call.name !== "") this.startCall(call);
		if (args === "") return;
		if (call.contentIndex < 0) call.buffered += args;
		else this.builder.appendToolCallArguments(call.contentIndex, args);
	}

	/** Find or open the call a delta belongs to. */
	private callFor(index: number | undefined, id: string | undefined): CallState {
		let call: CallState | undefined;
		if (index !== undefined) {
			call = this.byIndex.get(index);
			// A different id on a known index is a new call (servers that number every call 0).
			if (call && id !== undefined && call.id !== id && this.byId.has(call.id)) call = undefined;
		} else call = id !== undefined ? this.byId.get(id) : this.lastCall;
		if (!call) {
			call = {
				id: id ?? `${this.responseId || "call"}_${this.calls.length}`,
				name: "",
				contentIndex: -1,
				buffered: "",
			};
			this.calls.push(call);
			if (id !== undefined) this.byId.set(id, call);
		}
		if (index !== undefined) this.byIndex.set(index, call);
		this.lastCall = call;
		return call;
	}

	private startCall(call: CallState): void {
		if (call.contentIndex >= 0) return;
		this.closeCurrent();
		call.contentIndex = this.builder.startToolCall(call.id, call.name);
		if (call.buffered !== "") this.builder.appendToolCallArguments(call.contentIndex, call.buffered);
		call.buffered = "";
	}

	private appendText(text: string): void {
		if (this.current?.kind !== "text") {
			this.closeCurrent();
			this.lastText = this.builder.startText();
			this.current = { kind: "text", index: this.lastText };
		}
		this.builder.appendText(this.current.index, text);
	}

	private appendThinking(text: string): void {
		if (this.current?.kind !== "thinking") {
			this.closeCurrent();
			this.lastThinking = this.builder.startThinking();
			this.current = { kind: "thinking", index: this.lastThinking };
		}
		if (text !== "") this.builder.appendThinking(this.current.index, text);
	}

	private closeCurrent(): void {
		const open = this.current;
		if (!open) return;
		this.current = undefined;
		if (open.kind === "text") this.builder.endText(open.index);
		else this.builder.endThinking(open.index);
	}
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
	return value !== null && typeof value === "object" && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
}

function nonEmpty(value: unknown): string | undefined {
	return typeof value === "string" && value !== "" ? value : undefined;
}
