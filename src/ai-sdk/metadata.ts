/**
 * Provider metadata round trip. The AI SDK hands opaque per-provider data on stream parts (`providerMetadata`:
 * a reasoning signature, an encrypted reasoning item, a Gemini thought signature, an OpenAI item id) and wants
 * it back as `providerOptions` on the same prompt part next turn. capstan keeps it in the block's `signature`
 * (opaque, replayed byte for byte, rule M3) as JSON, and hands it back only to the provider that made it.
 */
import type { AssistantMessage, JsonValue } from "../core/messages.js";

/** Per-provider metadata as the AI SDK shapes it: provider name → JSON object. */
export type ProviderMetadata = Record<string, Record<string, JsonValue>>;

/** The `api` of every message this bridge builds. */
export const AI_SDK_API = "ai-sdk";

/** Shallow-merge metadata seen on several parts of one block (start, deltas, end): later keys win. */
export function mergeMetadata(
	into: ProviderMetadata | undefined,
	next: ProviderMetadata | undefined,
): ProviderMetadata | undefined {
	if (!next) return into;
	const merged: ProviderMetadata = { ...into };
	for (const [provider, data] of Object.entries(next)) merged[provider] = { ...merged[provider], ...data };
	return merged;
}

/** The signature text for `metadata`, or `undefined` when there is nothing to keep. */
export function encodeMetadata(metadata: ProviderMetadata | undefined): string | undefined {
	if (!metadata || Object.keys(metadata).length === 0) return undefined;
	return JSON.stringify(metadata);
}

/**
 * `providerOptions` from a signature this bridge wrote. A signature that is not our JSON (another provider's
 * opaque string) yields nothing rather than a wrong option.
 */
export function decodeMetadata(signature: string | undefined): ProviderMetadata | undefined {
	if (signature === undefined) return undefined;
	try {
		const value: unknown = JSON.parse(signature);
		if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
		for (const data of Object.values(value))
			if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
		return value as ProviderMetadata;
	} catch {
		return undefined;
	}
}

/**
 * True when `message` came from this bridge and the same AI SDK provider: only then is its opaque data
 * replayed (a signature is bound to the provider that issued it; another one rejects or misreads it).
 */
export function isOwnReply(message: AssistantMessage, provider: string): boolean {
	return message.api === AI_SDK_API && message.provider === provider;
}

/**
 * A provider-executed tool's result as the prompt part that replays it: the stream's `result` becomes an
 * `output` as the AI SDK builds it (`error-json` for a failure, `text` for a string, `json` otherwise), and its
 * metadata goes back as `providerOptions`. Also used on replay, for transcripts stored in the stream's shape.
 */
export function providerToolResult(
	toolCallId: string,
	toolName: string,
	result: unknown,
	isError: boolean | undefined,
	metadata: ProviderMetadata | undefined,
) {
	const value = (result ?? null) as JsonValue;
	const output = isError
		? { type: "error-json" as const, value }
		: typeof value === "string"
			? { type: "text" as const, value }
			: { type: "json" as const, value };
	return { type: "tool-result" as const, toolCallId, toolName, output, ...withProviderOptions(metadata) };
}

/** `{ providerOptions }` when there is metadata to send back, else nothing. */
export function withProviderOptions(metadata: ProviderMetadata | undefined): {
	providerOptions?: ProviderMetadata;
} {
	return metadata && Object.keys(metadata).length > 0 ? { providerOptions: metadata } : {};
}
