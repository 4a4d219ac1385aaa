/**
 * Gemini stream decoding: `streamGenerateContent?alt=sse` chunks → builder calls (rule E2). One decoder per
 * HTTP response; the stream simply ends after the chunk with `finishReason`, so the reply is finished by
 * {@link GeminiStreamDecoder.finish} at the end of the body, not at the first `finishReason` (a
 * hand-assembled Vertex capture repeats `finishReason: STOP` and then appends an error body).
 *
 * - `text` parts → text; `thought: true` → thinking; `thoughtSignature` on any part is kept (text and
 *   thinking signatures, tool-call signatures, or inside the provider block) and replayed to the same model.
 * - `functionCall` → a tool call. Whole arguments come in one part; Vertex `streamFunctionCallArguments`
 *   sends `{name, willContinue}`, then `partialArgs` fragments (`jsonPath` + typed value, strings continued
 *   with `willContinue`), then an empty `functionCall {}`: assembled here (with best-effort JSON deltas for
 *   `toolcall_delta`), and the call ends with the assembled object.
 *   Gemini generates no ids: ids are deterministic, `${name}_${responseId}_${n}` (rule L13).
 * - `executableCode`, `codeExecutionResult`, server `toolCall`/`toolResponse`, `inlineData` images and any
 *   other part → `ProviderBlock` holding the part unchanged.
 * - `usageMetadata` repeats on every chunk: the last wins. `citationMetadata`, `groundingMetadata` and
 *   `urlContextMetadata` become citations on the last text block.
 */
import type { AssistantMessageBuilder } from "../../core/assistant-builder.js";
import type { JsonValue, TextContent, ThinkingContent } from "../../core/messages.js";
import type { Model } from "../../core/model.js";
import { finishWithStop, type MappedStop, mapStopReason, type StopReasonTable } from "../base/stop-reason.js";
import { buildUsage } from "../base/usage.js";
import { geminiStreamError } from "./errors.js";
import {
	applyPartialArg,
	PartialArgsJsonWriter,
	type PartialArgsState,
	partialArgsState,
} from "./partial-args.js";
import { GOOGLE_API } from "./request.js";
import type {
	Candidate,
	GenerateContentResponse,
	GenerateContentResponseUsageMetadata,
	Part,
	PartialArg,
} from "./wire.js";

/** One decoded SSE chunk (the wire fields of `GenerateContentResponse`, plus an in-stream error). */
export type GeminiChunk = Pick<
	GenerateContentResponse,
	"candidates" | "promptFeedback" | "usageMetadata" | "responseId" | "modelVersion"
> & { error?: unknown };

const FILTERED = (explanation: string): MappedStop => ({
	reason: "error",
	details: { type: "content_filter", explanation },
	errorMessage: `the response was blocked by the provider: ${explanation}`,
});

/** Gemini finish reasons (rule M4); anything else is an `error` with the raw value kept. */
export const GEMINI_FINISH_REASONS: StopReasonTable = {
	STOP: { reason: "stop" },
	MAX_TOKENS: { reason: "length" },
	SAFETY: FILTERED("safety filter"),
	RECITATION: FILTERED("recitation of training data"),
	BLOCKLIST: FILTERED("blocklisted terms"),
	PROHIBITED_CONTENT: FILTERED("prohibited content"),
	SPII: FILTERED("sensitive personal information"),
	IMAGE_SAFETY: FILTERED("image safety filter"),
	IMAGE_PROHIBITED_CONTENT: FILTERED("prohibited image content"),
};

type OpenBlock = { kind: "text" | "thinking"; index: number } | undefined;

interface StreamingCall {
	block: number;
	args: PartialArgsState;
	json: PartialArgsJsonWriter;
}

/** Decodes one Gemini stream into an `AssistantMessageBuilder`. */
export class GeminiStreamDecoder {
	private open: OpenBlock;
	private lastText: number | undefined;
	private streaming: StreamingCall | undefined;
	private toolCalls = 0;
	private responseId: string | undefined;
	private finishReason: string | undefined;
	private finishMessage: string | undefined;
	private blockReason: string | undefined;
	private readonly citations = new Map<string, JsonValue>();
	private grounding: JsonValue | undefined;
	private urlContext: JsonValue | undefined;

	constructor(
		private readonly builder: AssistantMessageBuilder,
		private readonly model: Model,
	) {}

	/** Feed one parsed chunk. Throws a classified `ProviderError` for an in-stream error body. */
	handle(chunk: GeminiChunk): void {
		// Usage first: an error chunk may carry the usage of tokens already billed.
		if (chunk.error !== undefined && chunk.usageMetadata) this.setUsage(chunk.usageMetadata);
		if (chunk.error !== undefined) throw geminiStreamError(chunk.error);
		if (typeof chunk.responseId === "string" && this.responseId === undefined) {
			this.responseId = chunk.responseId;
			this.builder.setResponseId(chunk.responseId);
		}
		if (chunk.usageMetadata) this.setUsage(chunk.usageMetadata);
		const blocked = chunk.promptFeedback?.blockReason;
		if (blocked) this.blockReason = String(blocked);
		const candidate = chunk.candidates?.[0];
		if (!candidate) return;
		for (const part of candidate.content?.parts ?? []) this.part(part);
		this.keepMetadata(candidate);
		if (candidate.finishReason) this.finishReason = String(candidate.finishReason);
		if (typeof candidate.finishMessage === "string") this.finishMessage = candidate.finishMessage;
	}

	/**
	 * Finish the reply at the end of the body. Returns false when the stream carried no finish reason (the
	 * caller reports "stream ended unexpectedly").
	 */
	finish(): boolean {
		if (this.blockReason !== undefined) {
			this.builder.setStopDetails({ type: "content_filter", raw: this.blockReason });
			this.builder.fail("error", `the prompt was blocked by the provider: ${this.blockReason}`);
			return true;
		}
		if (this.finishReason === undefined) return false;
		this.endStreamingCall();
		this.closeOpen();
		this.attachCitations();
		const stop = mapStopReason(this.finishReason, GEMINI_FINISH_REASONS);
		// Gemini says STOP after function calls too.
		if (stop.reason === "stop" && this.toolCalls > 0) stop.reason = "toolUse";
		// Gemini explains failures (e.g. MALFORMED_FUNCTION_CALL) in `finishMessage`.
		if (stop.reason === "error" && this.finishMessage) {
			stop.errorMessage = `${stop.errorMessage ?? "the provider stopped with an error"}: ${this.finishMessage}`;
			if (stop.details) stop.details = { ...stop.details, explanation: this.finishMessage };
		}
		finishWithStop(this.builder, stop);
		return true;
	}

	private part(part: Part): void {
		if (part.functionCall) {
			this.functionCall(part);
			return;
		}
		if (this.streaming) this.endStreamingCall();
		if (typeof part.text === "string" && isOnlyText(part)) {
			if (part.thought === true) this.thinking(part.text, part.thoughtSignature);
			else this.text(part.text, part.thoughtSignature);
			return;
		}
		this.closeOpen();
		this.builder.addProviderBlock(GOOGLE_API, part as unknown as JsonValue);
	}

	private text(text: string, signature: string | undefined): void {
		if (text.length === 0 && !signature) return;
		let open = this.open?.kind === "text" ? this.open.index : undefined;
		const current = open === undefined ? undefined : (this.builder.message.content[open] as TextContent);
		// One signature per block: a second signed part starts a new block so each replays with its own.
		if (open === undefined || (signature && current?.signature)) {
			this.closeOpen();
			open = this.builder.startText();
			this.open = { kind: "text", index: open };
			this.lastText = open;
		}
		if (text.length > 0) this.builder.appendText(open, text);
		if (signature) this.builder.setTextSignature(open, signature);
	}

	private thinking(text: string, signature: string | undefined): void {
		let open = this.open?.kind === "thinking" ? this.open.index : undefined;
		const current = open === undefined ? undefined : (this.builder.message.content[open] as ThinkingContent);
		if (open === undefined || (signature && current?.signature)) {
			this.closeOpen();
			open = this.builder.startThinking();
			this.open = { kind: "thinking", index: open };
		}
		if (text.length > 0) this.builder.appendThinking(open, text);
		if (signature) this.builder.appendThinkingSignature(open, signature);
	}

	private functionCall(part: Part): void {
		const call = part.functionCall ?? {};
		const { name, partialArgs, willContinue } = call;
		if (this.streaming) {
			// A part that names a call starts a new one (its fragments are its own), ending the streamed one
			// even without the empty `functionCall {}` that usually closes it.
			if (name) this.endStreamingCall();
			else {
				if (partialArgs) for (const arg of partialArgs) this.partialArg(arg);
				else if (!willContinue) this.endStreamingCall();
				return;
			}
		}
		if (!name) return;
		this.closeOpen();
		const id = call.id ?? this.nextToolCallId(name);
		const block = this.builder.startToolCall(id, name, part.thoughtSignature);
		this.toolCalls++;
		if (willContinue) {
			this.streaming = { block, args: partialArgsState(), json: new PartialArgsJsonWriter() };
			if (partialArgs) for (const arg of partialArgs) this.partialArg(arg);
			return;
		}
		this.builder.appendToolCallArguments(block, JSON.stringify(call.args ?? {}));
		this.builder.endToolCall(block);
	}

	private partialArg(arg: PartialArg): void {
		const call = this.streaming;
		if (!call) return;
		applyPartialArg(call.args, arg);
		const delta = call.json.write(arg);
		if (delta.length > 0) this.builder.appendToolCallArguments(call.block, delta);
	}

	private endStreamingCall(): void {
		const call = this.streaming;
		if (!call) return;
		this.streaming = undefined;
		this.builder.endToolCall(call.block, JSON.stringify(call.args.args));
	}

	private nextToolCallId(name: string): string {
		const n = this.toolCalls;
		return this.responseId ? `${name}_${this.responseId}_${n}` : `${name}_${n}`;
	}

	private closeOpen(): void {
		const open = this.open;
		this.open = undefined;
		if (open?.kind === "text") this.builder.endText(open.index);
		else if (open?.kind === "thinking") this.builder.endThinking(open.index);
	}

	private setUsage(usage: GenerateContentResponseUsageMetadata): void {
		const cached = usage.cachedContentTokenCount ?? 0;
		const thoughts = usage.thoughtsTokenCount;
		const counts = {
			input: (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0) - cached,
			output: (usage.candidatesTokenCount ?? 0) + (thoughts ?? 0),
			cacheRead: cached,
			...(thoughts === undefined ? {} : { reasoning: thoughts }),
		};
		this.builder.setUsage(buildUsage(counts, this.model));
	}

	private keepMetadata(candidate: Candidate): void {
		const metadata = candidate as {
			citationMetadata?: { citationSources?: unknown[]; citations?: unknown[] };
		};
		const sources = metadata.citationMetadata?.citationSources ?? metadata.citationMetadata?.citations ?? [];
		for (const source of sources) this.citations.set(JSON.stringify(source), source as JsonValue);
		if (candidate.groundingMetadata && Object.keys(candidate.groundingMetadata).length > 0)
			this.grounding = candidate.groundingMetadata as unknown as JsonValue;
		if (candidate.urlContextMetadata && Object.keys(candidate.urlContextMetadata).length > 0)
			this.urlContext = candidate.urlContextMetadata as unknown as JsonValue;
	}

	private attachCitations(): void {
		const index = this.lastText;
		if (index === undefined) return;
		for (const source of this.citations.values()) this.builder.addCitation(index, { citationSource: source });
		if (this.grounding !== undefined) this.builder.addCitation(index, { groundingMetadata: this.grounding });
		if (this.urlContext !== undefined)
			this.builder.addCitation(index, { urlContextMetadata: this.urlContext });
	}
}

/** A part that is plain (or thought) text: nothing but `text`, `thought` and `thoughtSignature`. */
function isOnlyText(part: Part): boolean {
	for (const key of Object.keys(part))
		if (key !== "text" && key !== "thought" && key !== "thoughtSignature") return false;
	return true;
}
