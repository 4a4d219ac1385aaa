/**
 * Streams whose event snapshots are immutable by construction: every `partial`, `toolCall`, `arguments` and
 * final message they carry is never touched again once pushed (rule L5). Only streams driven entirely by
 * capstan's `AssistantMessageBuilder` are marked (the provider runner, the scripted model, the lazy
 * default relay of a marked stream); the loop then uses their snapshots as they are instead of copying.
 * Module-private state: a stream from outside the library can never claim it.
 */
const immutable = new WeakSet<object>();

/** Mark `stream` as carrying immutable snapshots. Internal: only for builder-driven streams. */
export function markImmutableSnapshots(stream: object): void {
	immutable.add(stream);
}

/** True when `stream` was marked by {@link markImmutableSnapshots}. */
export function hasImmutableSnapshots(stream: unknown): boolean {
	return typeof stream === "object" && stream !== null && immutable.has(stream);
}
