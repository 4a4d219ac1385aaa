import type { AgentMessage } from "../core/messages.js";
import type { Awaitable } from "../protocol/config.js";
import type { RunState } from "./run-state.js";
import { stopFacts } from "./signals.js";

/**
 * Every dequeue checks the signal (and the deadline) first, so an aborted run never drains a queue and a
 * steer queued before an abort is still queued after it (rule A6, A7, I3). A synchronous source (the
 * `Agent`'s queues) is answered synchronously: a turn boundary with nothing queued costs no tick.
 */
function dequeue(
	state: RunState,
	source: (() => Awaitable<AgentMessage[]>) | undefined,
): AgentMessage[] | Promise<AgentMessage[]> {
	if (!source || state.runSignal.aborted || stopFacts(state).deadlinePassed) return [];
	const messages = source();
	if (!isThenable(messages)) return Array.isArray(messages) ? messages : [];
	return Promise.resolve(messages).then((settled) => (Array.isArray(settled) ? settled : []));
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
	return typeof (value as { then?: unknown } | null)?.then === "function";
}

/**
 * After a turn (rule L8, L9, L10): steering always; asides only when the inner loop goes on anyway, so
 * a passive notice alone never revives a stopped agent here — only at the outer drain. Synchronous when
 * the sources are.
 */
export function dequeueAtTurnBoundary(state: RunState, loopGoesOn: boolean): void | Promise<void> {
	const steering = dequeue(state, state.config.getSteeringMessages);
	if (steering instanceof Promise) return steering.then((queued) => afterSteering(state, loopGoesOn, queued));
	return afterSteering(state, loopGoesOn, steering);
}

function afterSteering(state: RunState, loopGoesOn: boolean, steering: AgentMessage[]): void | Promise<void> {
	if (!loopGoesOn && steering.length === 0) return;
	const asides = dequeue(state, state.config.getAsideMessages);
	if (asides instanceof Promise) return asides.then((queued) => addPending(state, steering, queued));
	addPending(state, steering, asides);
}

function addPending(state: RunState, steering: AgentMessage[], asides: AgentMessage[]): void {
	if (steering.length > 0 || asides.length > 0) state.pending = [...state.pending, ...steering, ...asides];
}

/**
 * The outer drain when the inner loop would end (rule L7): late steering, then asides, then follow-ups —
 * follow-ups only when nothing else revives the run (rule L9). Answers whether the run goes on; synchronously
 * when the sources are synchronous.
 */
export function drainAtStop(state: RunState): boolean | Promise<boolean> {
	const steering = dequeue(state, state.config.getSteeringMessages);
	if (steering instanceof Promise) return steering.then((queued) => drainAsides(state, queued));
	return drainAsides(state, steering);
}

function drainAsides(state: RunState, steering: AgentMessage[]): boolean | Promise<boolean> {
	const asides = dequeue(state, state.config.getAsideMessages);
	if (asides instanceof Promise)
		return asides.then((queued) => drainFollowUps(state, [...steering, ...queued]));
	return drainFollowUps(state, [...steering, ...asides]);
}

function drainFollowUps(state: RunState, revived: AgentMessage[]): boolean | Promise<boolean> {
	if (revived.length > 0) return revive(state, revived);
	const followUps = dequeue(state, state.config.getFollowUpMessages);
	if (followUps instanceof Promise) return followUps.then((queued) => revive(state, queued));
	return revive(state, followUps);
}

function revive(state: RunState, revived: AgentMessage[]): boolean {
	if (revived.length === 0) return false;
	state.pending = [...state.pending, ...revived];
	return true;
}
