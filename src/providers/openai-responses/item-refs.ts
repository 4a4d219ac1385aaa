/**
 * How Responses item identity survives a round trip through our plain message model.
 *
 * The Responses API pairs items by id: a replayed `reasoning` item must be followed by the `message` or
 * `function_call` item it produced, named by its item id (`msg_…`, `fc_…`), and `gpt-5.3-codex`-style models
 * want each assistant message's `phase` back. Our `TextContent` and `ToolCall` have one opaque `signature`
 * string (rule M3), so it carries a small reference: the bare item id (the common case, readable in
 * transcripts), or a JSON object when more than the id must come back (`phase`, a tool `namespace`).
 * A tool call's own `id` is the `call_id`, which tool results refer to.
 */
import { safeCallId } from "../base/call-id.js";

/** What we keep of an output item to replay it. */
export interface ItemRef {
	/** The output item's id (`msg_…`, `fc_…`), which a replayed reasoning item is paired with. */
	id?: string;
	/** A message item's `phase`, sent back for models that want it. */
	phase?: string;
	/** A function call item's `namespace`, sent back with the call. */
	namespace?: string;
}

/** Encode an item reference as a signature string; `undefined` when there is nothing to keep. */
export function encodeItemRef(ref: ItemRef): string | undefined {
	const { id, phase, namespace } = ref;
	if (phase === undefined && namespace === undefined) return id;
	const out: ItemRef = {};
	if (id !== undefined) out.id = id;
	if (phase !== undefined) out.phase = phase;
	if (namespace !== undefined) out.namespace = namespace;
	return JSON.stringify(out);
}

/** Decode a signature written by {@link encodeItemRef}; anything unreadable is treated as a bare id. */
export function decodeItemRef(signature: string | undefined): ItemRef {
	if (signature === undefined || signature === "") return {};
	if (!signature.startsWith("{")) return { id: signature };
	try {
		const value = JSON.parse(signature) as Record<string, unknown>;
		const ref: ItemRef = {};
		if (typeof value.id === "string") ref.id = value.id;
		if (typeof value.phase === "string") ref.phase = value.phase;
		if (typeof value.namespace === "string") ref.namespace = value.namespace;
		return ref;
	} catch {
		return { id: signature };
	}
}

/**
 * The `call_id` to send for a tool-call id (rule C4): ids from this API pass unchanged; ids from other
 * providers with characters or lengths the API may refuse are rewritten deterministically (a call and its
 * result, converted separately, always get the same id).
 */
export function responsesCallId(id: string): string {
	return safeCallId(id);
}
