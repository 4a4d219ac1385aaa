/**
 * capstan messages in the shapes of the OpenTelemetry GenAI semantic conventions (`gen_ai.input.messages`,
 * `gen_ai.output.messages`, `gen_ai.system_instructions`): `{role, parts}` with `text`, `reasoning`,
 * `tool_call` and `tool_call_response` parts. Pure data conversion, no OpenTelemetry import; used only when
 * the host opts in to content recording.
 *
 * Images are summarized (`{type: "image", mime_type, base64_length}`), never exported: span attributes are
 * the wrong place for megabytes of base64. Redacted thinking and provider blocks are opaque and left out.
 */
import type {
	AgentMessage,
	AssistantContent,
	AssistantMessage,
	StopReason,
	UserContent,
} from "../core/messages.js";

/** One part of a GenAI message. */
export type GenAiPart =
	| { type: "text"; content: string }
	| { type: "reasoning"; content: string }
	| { type: "tool_call"; id: string; name: string; arguments: Record<string, unknown> }
	| { type: "tool_call_response"; id: string; response: string }
	| { type: "image"; mime_type: string; base64_length: number };

/** A GenAI chat message. */
export interface GenAiMessage {
	role: "user" | "assistant" | "tool";
	parts: GenAiPart[];
}

/** A GenAI output message: one per choice, with its finish reason. */
export interface GenAiOutputMessage extends GenAiMessage {
	finish_reason: string;
}

/** The wire messages of a transcript as GenAI input messages; custom roles are dropped (as rule C2 does). */
export function toInputMessages(messages: readonly AgentMessage[]): GenAiMessage[] {
	const out: GenAiMessage[] = [];
	for (const message of messages) {
		const converted = toInputMessage(message);
		if (converted) out.push(converted);
	}
	return out;
}

/** One wire message as a GenAI input message; `undefined` for a custom role. */
export function toInputMessage(message: AgentMessage): GenAiMessage | undefined {
	const role = (message as { role?: unknown }).role;
	if (role === "user") {
		const { content } = message as { content: string | UserContent[] };
		return { role: "user", parts: typeof content === "string" ? [textPart(content)] : userParts(content) };
	}
	if (role === "assistant")
		return { role: "assistant", parts: assistantParts((message as AssistantMessage).content) };
	if (role === "toolResult") {
		const result = message as { toolCallId: string; content: UserContent[] };
		return { role: "tool", parts: [toolResponsePart(result.toolCallId, result.content)] };
	}
	return undefined;
}

/** The reply of one model call as GenAI output messages. */
export function toOutputMessages(message: AssistantMessage): GenAiOutputMessage[] {
	return [
		{
			role: "assistant",
			parts: assistantParts(message.content),
			finish_reason: finishReason(message.stopReason, message.stopDetails?.type),
		},
	];
}

/** The system prompt as GenAI system instructions. */
export function toSystemInstructions(systemPrompt: string): { type: "text"; content: string }[] {
	return [textPart(systemPrompt)];
}

/** A tool result's content as the text of a `tool_call_response` (images summarized). */
export function toolResultText(content: readonly UserContent[]): string {
	return content
		.map((block) => (block.type === "text" ? block.text : `[image ${block.mimeType}]`))
		.join("\n");
}

/**
 * The GenAI finish reason of a reply: `stop`, `length`, `tool_call`, `content_filter` (refusals and filters,
 * Rule S5) or `error` (errors and aborts).
 */
export function finishReason(stopReason: StopReason, stopDetail?: string): string {
	if (stopDetail === "refusal" || stopDetail === "content_filter") return "content_filter";
	return FINISH_REASONS[stopReason];
}

const FINISH_REASONS: Record<StopReason, string> = {
	stop: "stop",
	length: "length",
	toolUse: "tool_call",
	error: "error",
	aborted: "error",
};

function textPart(content: string): { type: "text"; content: string } {
	return { type: "text", content };
}

function userParts(content: readonly UserContent[]): GenAiPart[] {
	return content.map((block) =>
		block.type === "text"
			? textPart(block.text)
			: { type: "image", mime_type: block.mimeType, base64_length: block.data.length },
	);
}

function assistantParts(content: readonly AssistantContent[]): GenAiPart[] {
	const parts: GenAiPart[] = [];
	for (const block of content) {
		if (block.type === "text") parts.push(textPart(block.text));
		else if (block.type === "thinking") parts.push({ type: "reasoning", content: block.thinking });
		else if (block.type === "toolCall")
			parts.push({ type: "tool_call", id: block.id, name: block.name, arguments: block.arguments });
	}
	return parts;
}

function toolResponsePart(id: string, content: readonly UserContent[]): GenAiPart {
	return { type: "tool_call_response", id, response: toolResultText(content) };
}
