/**
 * OpenRouter's `reasoning_details`: reasoning entries (text with a signature, summaries, encrypted blobs) that
 * stream in pieces keyed by `index` and must go back to the same model exactly as received. The decoder keeps
 * the merged entries in a `ProviderBlock` (rule M3: opaque, replayed unchanged to the same API) besides the
 * readable thinking blocks, and the request builder replays that block verbatim.
 */
import type { JsonValue, ProviderBlock } from "../../core/messages.js";

/** One `reasoning_details` entry, as it streams and as it is replayed. */
export interface ReasoningDetail {
	/** The entry's kind: readable text, a summary, or an encrypted blob. */
	type: "reasoning.text" | "reasoning.summary" | "reasoning.encrypted" | (string & {});
	/** Reasoning text (`reasoning.text`); streamed pieces are appended. */
	text?: string;
	/** Summary text (`reasoning.summary`); streamed pieces are appended. */
	summary?: string;
	/** The encrypted reasoning (`reasoning.encrypted`); streamed pieces are appended. */
	data?: string;
	/** The provider's signature over the entry; streamed pieces are appended. */
	signature?: string;
	/** The provider's format name for the entry. */
	format?: string;
	/** The provider's id for the entry. */
	id?: string;
	/** The key that joins an entry's streamed pieces; an entry without one stands alone. */
	index?: number;
}

/** `ProviderBlock.data.type` of the block that carries merged `reasoning_details`. */
export const REASONING_DETAILS_BLOCK = "reasoning_details";

const APPENDED = ["text", "summary", "data", "signature"] as const;
const REPLACED = ["type", "format", "id"] as const;

/** Merges streamed entries by `index` (an entry without one stands alone). */
export class ReasoningDetailsLog {
	private readonly entries: ReasoningDetail[] = [];
	private readonly byIndex = new Map<number, ReasoningDetail>();

	/** Merge one streamed entry. */
	add(raw: Record<string, unknown>): void {
		const index = typeof raw.index === "number" ? raw.index : undefined;
		let entry = index === undefined ? undefined : this.byIndex.get(index);
		if (!entry) {
			entry = { type: typeof raw.type === "string" ? raw.type : "reasoning.text" };
			if (index !== undefined) {
				entry.index = index;
				this.byIndex.set(index, entry);
			}
			this.entries.push(entry);
		}
		for (const key of APPENDED) if (typeof raw[key] === "string") entry[key] = (entry[key] ?? "") + raw[key];
		for (const key of REPLACED) if (typeof raw[key] === "string" && raw[key] !== "") entry[key] = raw[key];
	}

	/** The merged entries that carry anything; empty when nothing worth replaying arrived. */
	details(): ReasoningDetail[] {
		return this.entries.filter((entry) => APPENDED.some((key) => (entry[key] ?? "") !== ""));
	}
}

/** The merged entries of a message's reasoning-details block, if it has one for `api`. */
export function replayableDetails(
	content: readonly { type: string }[],
	api: string,
): ReasoningDetail[] | undefined {
	for (const block of content) {
		if (block.type !== "providerBlock") continue;
		const { api: blockApi, data } = block as ProviderBlock;
		const record = data as { type?: JsonValue; reasoning_details?: JsonValue } | null;
		if (
			blockApi === api &&
			record?.type === REASONING_DETAILS_BLOCK &&
			Array.isArray(record.reasoning_details)
		)
			return record.reasoning_details as unknown as ReasoningDetail[];
	}
	return undefined;
}
