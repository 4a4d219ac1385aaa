/**
 * What a recorded Gemini stream says about itself, read independently of the decoder under test.
 */
import type { TokenCounts, ToolCallFact } from "../support/content.js";
import { recordedEvents } from "../support/fixtures.js";

/** The fixture folders of Gemini API and Vertex AI recordings. */
export const GEMINI_FOLDERS = ["google-gemini", "google-vertex"] as const;

/** A recorded Gemini chunk (loosely typed: this is test-side reading of the recording). */
export interface RecordedChunk {
	candidates?: {
		content?: { parts?: Record<string, unknown>[] };
		finishReason?: string;
	}[];
	usageMetadata?: Record<string, number>;
	responseId?: string;
	promptFeedback?: { blockReason?: string };
}

/** The JSON chunks of a body (the non-SSE trailing lines are not events and are not included). */
export function recordedChunks(body: Uint8Array): RecordedChunk[] {
	return recordedEvents(body).map((event) => JSON.parse(event.data) as RecordedChunk);
}

/** Expected facts of one recorded response. */
export interface GeminiFacts {
	text: string;
	thinking: string;
	toolCalls: ToolCallFact[];
	usage: TokenCounts;
	finishReason: string | undefined;
	providerParts: unknown[];
	responseId: string | undefined;
}

/** Read the facts of one body. */
export function geminiFacts(body: Uint8Array): GeminiFacts {
	let text = "";
	let thinking = "";
	const toolCalls: GeminiFacts["toolCalls"] = [];
	const providerParts: unknown[] = [];
	let usage: Record<string, number> = {};
	let finishReason: string | undefined;
	let responseId: string | undefined;
	let streamed: { name: string; args: Record<string, string> } | undefined;
	const callId = (name: string) =>
		responseId ? `${name}_${responseId}_${toolCalls.length}` : `${name}_${toolCalls.length}`;
	const endStreamed = () => {
		if (streamed)
			toolCalls.push({ id: callId(streamed.name), name: streamed.name, arguments: streamed.args });
		streamed = undefined;
	};
	for (const chunk of recordedChunks(body)) {
		responseId ??= chunk.responseId;
		if (chunk.usageMetadata) usage = chunk.usageMetadata;
		const candidate = chunk.candidates?.[0];
		for (const part of candidate?.content?.parts ?? []) {
			const call = part.functionCall as
				| {
						name?: string;
						args?: unknown;
						willContinue?: boolean;
						partialArgs?: { jsonPath: string; stringValue?: string }[];
				  }
				| undefined;
			if (call) {
				for (const arg of call.partialArgs ?? []) {
					// The recordings only stream top-level string arguments.
					const key = arg.jsonPath.replace(/^\$\./, "");
					if (streamed) streamed.args[key] = (streamed.args[key] ?? "") + (arg.stringValue ?? "");
				}
				if (call.name) {
					endStreamed();
					if (call.willContinue) streamed = { name: call.name, args: {} };
					else toolCalls.push({ id: callId(call.name), name: call.name, arguments: call.args ?? {} });
				} else if (!call.partialArgs && !call.willContinue) endStreamed();
				continue;
			}
			endStreamed();
			const onlyText = Object.keys(part).every((key) =>
				["text", "thought", "thoughtSignature"].includes(key),
			);
			if (typeof part.text === "string" && onlyText) {
				if (part.thought === true) thinking += part.text;
				else text += part.text;
			} else providerParts.push(part);
		}
		if (candidate?.finishReason) finishReason = candidate.finishReason;
	}
	endStreamed();
	const cached = usage.cachedContentTokenCount ?? 0;
	const facts: GeminiFacts = {
		text,
		thinking,
		toolCalls,
		usage: {
			input: (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0) - cached,
			output: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
			cacheRead: cached,
			cacheWrite: 0,
			totalTokens: usage.totalTokenCount ?? 0,
		},
		finishReason,
		providerParts,
		responseId,
	};
	if (usage.thoughtsTokenCount !== undefined) facts.usage.reasoning = usage.thoughtsTokenCount;
	// A recording without any usageMetadata: the usage is unknown, not zero (hardening item 6).
	if (Object.keys(usage).length === 0) facts.usage.unknown = true;
	return facts;
}
