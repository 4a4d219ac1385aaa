import type { AgentMessage } from "../core/messages.js";
import type { Awaitable } from "../protocol/config.js";
import type { RunState } from "./run-state.js";
import { stopFacts } from "./signals.js";

/**
 * Every dequeue checks the signal (and the deadline) first, so an aborted run never drains a queue and a
 * steer queued before an abort is still queued after it (rule A6, A7, I3).
 */
async function dequeue(
	state: RunState,
	source: (() => Awaitable<AgentMessage[]>) | undefined,
): Promise<AgentMessage[]> {
	if (!source || state.runSignal.aborted || stopFacts(state).deadlinePassed) return [];
	const messages = await source();
	return Array.isArray(messages) ? messages : [];
}

/**
 * After a turn (rule L8, L9, L10): steering always; asides only when the inner loop goes on anyway, so
 * a passive notice alone never revives a stopped agent here — only at the outer drain.
 */
export async function dequeueAtTurnBoundary(state: RunState, loopGoesOn: boolean): Promise<void> {
	const steering = await dequeue(state, state.config.getSteeringMessages);
	const asides = loopGoesOn || steering.length > 0 ? await dequeue(state, state.config.getAsideMessages) : [];
	if (steering.length > 0 || asides.length > 0) state.pending = [...state.pending, ...steering, ...asides];
}

/**
 * The outer drain when the inner loop would end (rule L7): late steering, then asides, then follow-ups —
 * follow-ups only when nothing else revives the run (rule L9). Returns whether the run goes on.
 */
export async function drainAtStop(state: RunState): Promise<boolean> {
	const steering = await dequeue(state, state.config.getSteeringMessages);
	const asides = await dequeue(state, state.config.getAsideMessages);
	let revived: AgentMessage[] = [...steering, ...asides];
	if (revived.length === 0) revived = await dequeue(state, state.config.getFollowUpMessages);
	if (revived.length === 0) return false;
	state.pending = [...state.pending, ...revived];
	return true;
}
