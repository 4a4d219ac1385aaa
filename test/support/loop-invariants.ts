/**
 * The invariants every played scenario must satisfy (SPEC I1–I4 and the rules they rest on), each failure
 * naming its rule. Used by test/loop/properties.test.ts.
 */
import { expect } from "vitest";
import {
	type AgentEvent,
	type AgentMessage,
	type AssistantMessage,
	defaultConvertToLlm,
	type ToolCall,
	type ToolResultMessage,
} from "../../src/index.js";
import { MAX_PAUSED_TURN_CONTINUATIONS } from "../../src/loop/decide.js";
import { repairPairing } from "../../src/loop/pairing.js";
import { STEERING_INTERRUPT_POLL_MS } from "../../src/tools/batch.js";
import type { Played } from "./loop-play.js";
import { concurrencyOf, isAgent, isInterruptible, type Scenario } from "./loop-scenarios.js";
import { assertBalanced, assertPaired } from "./trace.js";

/**
 * SPEC I4: fake ms the run may take to end after the abort or the deadline. Nothing the loop controls waits;
 * only a host hook that gets no signal (`onBeforeYield`) may hold it for as long as it takes.
 */
function stopBoundMs(scenario: Scenario): number {
	return scenario.yieldMs ?? 0;
}

function agentEnd(events: readonly AgentEvent[]) {
	const last = events[events.length - 1];
	if (last?.type !== "agent_end") throw new Error("SPEC I2: the last event is not agent_end");
	return last;
}

function countIn(messages: readonly AgentMessage[], message: AgentMessage): number {
	return messages.filter((m) => m === message).length;
}

type PlayedRun = Played & { settled: boolean };
type AgentEnd = Extract<AgentEvent, { type: "agent_end" }>;

/** Every invariant of one played scenario; throws with the rule's name on the first violation. */
export function checkInvariants(played: PlayedRun): void {
	assertTermination(played);
	const end = assertEvents(played);
	const runTranscript = assertTranscripts(played, end);
	assertQueues(played, end);
	assertSteeringInterrupts(played);
	assertPausesBounded(runTranscript);
	assertEventArgsMatchHistory(played, runTranscript);
	assertScheduling(played, runTranscript);
	assertPlaceholdersHaveCauses(played, runTranscript);
	assertOutcome(played, end);
	assertFacade(played);
}

/** SPEC I4: the run ended (agent_end and a settled result()/prompt()), soon after an abort or deadline. */
function assertTermination(played: PlayedRun): void {
	const { scenario } = played;
	if (!played.settled) {
		throw new Error(
			`SPEC I4: the run did not settle (agent_end ${played.endedAt === undefined ? "never emitted" : `at ${played.endedAt} ms`})`,
		);
	}
	// Whatever tools and provider did with their signal.
	if (played.stoppedAt !== undefined) {
		const lag = (played.settledAt ?? Number.POSITIVE_INFINITY) - played.stoppedAt;
		const bound = stopBoundMs(scenario);
		if (lag > bound)
			throw new Error(`SPEC I4: the run settled ${lag} ms after the ${scenario.stop.kind} (bound ${bound})`);
	}
}

/** SPEC I2 (L4), L5: balanced, scoped events that stay snapshots; returns the run's agent_end. */
function assertEvents(played: PlayedRun): AgentEnd {
	const { events } = played;
	assertBalanced(events);
	expect(played.lateEvents, "SPEC I2: events after agent_end").toEqual([]);
	const end = agentEnd(events);
	// SPEC L5: nothing a subscriber received changed afterwards.
	events.forEach((event, i) => {
		if (JSON.stringify(event) !== played.snapshots[i])
			throw new Error(`SPEC L5: ${event.type} at ${i} changed after it was received`);
	});
	assertScopedUpdates(events);
	assertTurnsPairTheirCalls(events);
	return end;
}

/**
 * SPEC I1, I5, L1, Q1: the final transcript, every provider request and the reloaded transcript are paired.
 * Returns the run's own transcript (after Agent.reset() the state's transcript starts afresh).
 */
function assertTranscripts(played: PlayedRun, end: AgentEnd): readonly AgentMessage[] {
	const { transcript, scenario } = played;
	const wasReset = scenario.stop.kind === "reset" && played.outcomeAbortedBeforeEnd;
	if (wasReset) {
		// SPEC Q1: nothing of the run reset() aborted leaks into the fresh transcript.
		for (const message of end.messages)
			if (transcript.includes(message))
				throw new Error("SPEC Q1: a message of the reset run is in the new transcript");
	} else {
		// SPEC L1/Q1: result() and agent_end carry what the run added; the Agent's state holds the same objects.
		expect(transcript.slice(0, played.initial.length)).toEqual(played.initial);
		end.messages.forEach((message, i) => {
			expect(transcript[played.initial.length + i]).toBe(message);
		});
	}
	// SPEC I1: every tool call id has exactly one result, after the assistant message holding it — in the
	// final transcript and in every request the provider saw (SPEC L3) …
	assertPaired(transcript);
	assertResultsFollowTheirCalls(transcript);
	for (const request of played.requests()) {
		assertPaired(request);
		assertResultsFollowTheirCalls(request);
	}
	// … and SPEC I5/M6: reloaded from JSON, the transcript still converts to a paired request.
	assertPaired(defaultConvertToLlm(JSON.parse(JSON.stringify(transcript)) as AgentMessage[]));
	// The repair a session file gets on load (after a damaged line) finds nothing to change in what a run wrote.
	if (repairPairing(transcript, { resumeLastBatch: true }).messages !== transcript)
		throw new Error("SPEC I1: repairPairing changed a transcript the loop wrote");
	return wasReset ? [...played.initial, ...end.messages] : transcript;
}

/** SPEC I3, A6, A7, L9, Q2, Q3: nothing queued is lost, dequeued late, reordered or refused wrongly. */
function assertQueues(played: PlayedRun, end: AgentEnd): void {
	const { transcript } = played;
	// SPEC I3: every steer / follow-up / aside is in the transcript exactly once, or still queued — never both.
	const stillQueued = played.stillQueued();
	for (const message of played.queued) {
		if (played.dropped.includes(message)) continue; // reset() and clearQueues() drop them by design
		const seen = countIn(transcript, message) + countIn(stillQueued, message);
		if (seen !== 1) {
			throw new Error(
				`SPEC I3: ${JSON.stringify((message as { content: unknown }).content)} is in the transcript ${countIn(transcript, message)}× and queued ${countIn(stillQueued, message)}×`,
			);
		}
	}
	expect(played.busyViolations, "SPEC Q3").toEqual([]);
	// SPEC A6, A7: abort and deadline never drain a queue.
	expect(played.lateDequeues, "SPEC A6/A7: dequeued after the stop").toEqual([]);
	// SPEC L9/L7: a run that completes has drained every message queued while it ran.
	if (end.outcome.type === "completed" && end.outcome.stoppedBy === undefined) {
		for (const message of played.queuedWhileRunning) {
			if (!end.messages.includes(message) && !played.dropped.includes(message))
				throw new Error(
					`SPEC L9: ${JSON.stringify((message as { content: unknown }).content)} queued during a completed run was never injected`,
				);
		}
	}
	// SPEC L9: follow-ups are only dequeued when the agent would otherwise stop — after a reply without calls.
	end.messages.forEach((message, index) => {
		if (!String((message as { content?: unknown }).content).startsWith("follow-up ")) return;
		const before = end.messages.slice(0, index).reverse();
		const reply = before.find((m) => (m as { role?: string }).role === "assistant") as
			| AssistantMessage
			| undefined;
		if (reply?.content.some((block) => block.type === "toolCall"))
			throw new Error(`SPEC L9: a follow-up was injected at ${index} while the model was still working`);
	});
	// SPEC Q2: each queue is FIFO — its messages reach the transcript in the order they were queued.
	for (const prefix of ["steer ", "follow-up "]) {
		const ofQueue = (m: AgentMessage) => String((m as { content?: unknown }).content).startsWith(prefix);
		const injected = transcript.filter((m) => ofQueue(m) && played.queued.includes(m));
		const queuedOrder = played.queued.filter((m) => ofQueue(m) && injected.includes(m));
		expect(injected, `${prefix.trim()} messages are injected in queue order`).toEqual(queuedOrder);
	}
	// SPEC Q4: `continue()` picks up what the first run left; a second run that completes drains the queues.
	if (played.second) {
		if (!played.second.settled) throw new Error("SPEC I4: Agent.continue() did not settle");
		assertBalanced(played.second.events);
		const outcome = agentEnd(played.second.events).outcome;
		if (outcome.type === "completed" && outcome.stoppedBy === undefined) expect(stillQueued).toEqual([]);
	}
}

/** SPEC L12, A1, A7: the outcome names the stop that ended the run and agrees with the transcript. */
function assertOutcome(played: PlayedRun, end: AgentEnd): void {
	const { scenario } = played;
	const thrownHook =
		scenario.turnEndThrowsAt !== undefined ||
		typeof scenario.transform === "number" ||
		typeof scenario.steps === "object";
	if (played.outcomeAbortedBeforeEnd && !thrownHook) {
		const { outcome } = end;
		if (played.abortedAtEvent === undefined || outcome.type === "aborted")
			expect(outcome.type).toBe("aborted");
		else {
			// A subscriber's abort may land after the run settled how it ends — in the turn_end of a reply that
			// ended it, or while a run the gate stopped commits what it had dequeued. The earlier ending stands;
			// SPEC A1 asks only that nothing new starts.
			expect(outcome.type === "completed" ? outcome.stoppedBy : outcome.type).toBeDefined();
			const later = played.events.slice(played.abortedAtEvent);
			const started = later.filter(
				(e) => e.type === "turn_start" || (e.type === "message_start" && e.message.role === "assistant"),
			);
			expect(started, "SPEC A1: nothing starts after the abort").toEqual([]);
		}
	}
	if (
		scenario.stop.kind === "deadline" &&
		played.endedAt !== undefined &&
		scenario.stop.at < played.endedAt &&
		!thrownHook
	)
		expect(end.outcome.type).toBe("deadline");
	assertOutcomeMatchesTranscript(end, scenario);
}

/** SPEC Q1: the Agent's state after its runs. */
function assertFacade(played: PlayedRun): void {
	if (!played.agent) return;
	const state = played.agent.state;
	expect(state.isStreaming).toBe(false);
	expect(state.streamMessage).toBeUndefined();
	expect(state.pendingToolCalls.size).toBe(0);
	const last = agentEnd(played.second?.events ?? played.events).outcome;
	// reset() hands the state over fresh: a run it cut short may still end in error (the failure was settled
	// before the reset landed), and its subscribers see that in agent_end, but the error belongs to the
	// discarded conversation and never reaches the state.
	const cutByReset = played.scenario.stop.kind === "reset" && played.outcomeAbortedBeforeEnd;
	const owned = played.second !== undefined || !cutByReset;
	expect(state.error).toBe(owned && last.type === "error" ? last.error : undefined);
}

/**
 * SPEC L4, L8: updates only inside their scope — message_update inside an open assistant message, tool updates
 * between their tool's start and end, every tool and message event inside a turn. The one exception is the
 * run's documented last step: inputs already dequeued but never injected (a stop before the turn) are committed
 * right before agent_end (SPEC I3), outside any turn.
 */
function assertScopedUpdates(events: readonly AgentEvent[]): void {
	let turn = false;
	let flushing = false;
	let message: AgentMessage | undefined;
	const tools = new Set<string>();
	events.forEach((event, index) => {
		const where = `${event.type} at ${index}`;
		if (flushing && !isFlushEvent(event) && event.type !== "agent_end")
			throw new Error(`SPEC L4: ${where} after messages committed outside a turn`);
		if (!turn && isFlushEvent(event)) {
			flushing = true;
			return;
		}
		switch (event.type) {
			case "turn_start":
			case "turn_end":
				turn = event.type === "turn_start";
				return;
			case "message_start":
				message = event.message;
				break;
			case "message_end":
				message = undefined;
				break;
			case "message_update":
				if ((message as { role?: unknown } | undefined)?.role !== "assistant")
					throw new Error(`SPEC L4: ${where} outside an assistant message`);
				break;
			case "tool_execution_start":
				tools.add(event.toolCallId);
				break;
			case "tool_execution_end":
				tools.delete(event.toolCallId);
				break;
			case "tool_execution_update":
				if (!tools.has(event.toolCallId)) throw new Error(`SPEC L4: ${where} outside its tool's execution`);
				break;
			default:
				return;
		}
		if (!turn) throw new Error(`SPEC L4: ${where} outside a turn`);
	});
}

function isFlushEvent(event: AgentEvent): boolean {
	return (
		(event.type === "message_start" || event.type === "message_end") &&
		(event.message as { role?: unknown }).role !== "assistant"
	);
}

/** SPEC T7, T13: each turn_end lists exactly one result per tool call of its message, in call order. */
function assertTurnsPairTheirCalls(events: readonly AgentEvent[]): void {
	for (const event of events) {
		if (event.type !== "turn_end") continue;
		const calls = event.message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []));
		expect(event.toolResults.map((result) => result.toolCallId)).toEqual(calls);
	}
}

/**
 * SPEC T10: in `immediate` mode, an interruptible tool that runs while a steering message is queued is
 * interrupted at once with an event-driven wake-up (the Agent always offers one), or by the next poll.
 */
function assertSteeringInterrupts(played: Played): void {
	const { scenario } = played;
	if (scenario.interruptMode !== "immediate") return;
	// A steer the host withdrew (clearQueues, reset) before the loop peeked owes no interrupt (SPEC T12).
	if (played.dropped.some((m) => String((m as { content?: unknown }).content).startsWith("steer "))) return;
	const bound = isAgent(scenario) || scenario.eventDriven ? 0 : STEERING_INTERRUPT_POLL_MS;
	for (const execution of played.executions) {
		if (execution.steeredAt === undefined || execution.endedAt === undefined) continue;
		if (!isInterruptible(scenario, execution.toolName, execution.args)) continue;
		// A tool that had already returned is only finishing (afterToolCall): it keeps its real result.
		const returnedAt = played.executeEnds.get(execution.toolCallId);
		const lag = Math.min(execution.endedAt, returnedAt ?? Number.POSITIVE_INFINITY) - execution.steeredAt;
		if (lag > bound) {
			throw new Error(
				`SPEC T10: interruptible ${execution.toolName} (${execution.toolCallId}) ran ${lag} ms after a steering message was queued (bound ${bound} ms)`,
			);
		}
	}
}

/**
 * SPEC T10, T11, A3: a synthetic result names a cause that happened. `interrupted` needs a queued steer in
 * `immediate` mode, and only an interruptible tool is abandoned while it runs; `aborted`/`deadline` need the
 * stop; `length`/`error` need such a reply.
 */
function assertPlaceholdersHaveCauses(played: Played, transcript: readonly AgentMessage[]): void {
	const { scenario } = played;
	const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
	const holders = new Map<string, AssistantMessage>();
	for (const message of transcript) {
		const m = message as { role?: string; content?: unknown };
		if (m.role === "assistant")
			for (const block of (m as AssistantMessage).content)
				if (block.type === "toolCall") holders.set(block.id, m as AssistantMessage);
		if (m.role === "assistant")
			for (const block of m.content as {
				type: string;
				id: string;
				name: string;
				arguments: Record<string, unknown>;
			}[])
				if (block.type === "toolCall") calls.set(block.id, { name: block.name, args: block.arguments });
	}
	for (const message of transcript) {
		const result = message as ToolResultMessage;
		if (result.role !== "toolResult") continue;
		const details = result.details as { synthetic?: boolean; reason?: string; started?: boolean } | undefined;
		if (!details?.synthetic) continue;
		const where = `${details.reason} placeholder for ${result.toolName} (${result.toolCallId})`;
		// SPEC A3, T11: `started` tells a UI whether the tool had begun executing.
		if (
			(details.started === true) !== played.executeStarts.has(result.toolCallId) &&
			runIsFirst(played, result)
		)
			throw new Error(
				`SPEC T11: ${where} says started=${details.started === true}, but execute was ${played.executeStarts.has(result.toolCallId) ? "" : "never "}called`,
			);
		switch (details.reason) {
			case "interrupted": {
				// SPEC L10: asides never interrupt; only a steer does.
				const steered = played.queued.some((m) =>
					String((m as { content?: unknown }).content).startsWith("steer "),
				);
				if (scenario.interruptMode !== "immediate" || !steered)
					throw new Error(`SPEC T10: ${where} without a steer in immediate mode`);
				const call = calls.get(result.toolCallId);
				if (details.started && !(call && isInterruptible(scenario, call.name, call.args)))
					throw new Error(`SPEC T10: ${where}: a running non-interruptible tool was abandoned`);
				break;
			}
			case "aborted":
			case "deadline": {
				const expected = details.reason === "deadline" ? ["deadline"] : ["abort", "reset"];
				if (!expected.includes(scenario.stop.kind)) throw new Error(`SPEC A3: ${where} without its stop`);
				// SPEC A1: a tool that had finished before the stop keeps its real result.
				const finishedAt = played.executeEnds.get(result.toolCallId);
				if (finishedAt !== undefined && played.stoppedAt !== undefined && finishedAt < played.stoppedAt)
					throw new Error(
						`SPEC A1: ${where}, but the tool had finished at ${finishedAt} ms, before the stop at ${played.stoppedAt} ms`,
					);
				break;
			}
			case "error":
				if (holders.get(result.toolCallId)?.stopReason !== "error")
					throw new Error(`SPEC A3/S4: ${where}, but its reply did not fail`);
				break;
			case "length":
				if (holders.get(result.toolCallId)?.stopReason !== "length")
					throw new Error(`SPEC S2: ${where}, but its reply did not stop for length`);
				break;
		}
	}
}

/**
 * SPEC T6, in fake time: a shared call starts executing only after the most recent exclusive call before it
 * has settled; an exclusive call only after every call scheduled before it has settled.
 */
function assertScheduling(played: Played, transcript: readonly AgentMessage[]): void {
	const ends = new Map(played.executions.map((e) => [e.toolCallId, e.endedAt]));
	for (const message of transcript) {
		const m = message as { role?: string; content?: unknown };
		if (m.role !== "assistant") continue;
		const calls = (m.content as { type: string }[]).filter((b): b is ToolCall => b.type === "toolCall");
		const scheduled: ToolCall[] = [];
		let lastExclusive: ToolCall | undefined;
		for (const call of calls) {
			const cls = concurrencyOf(played.scenario, call);
			if (cls === "none") continue;
			const waitsFor = cls === "exclusive" ? [...scheduled] : lastExclusive ? [lastExclusive] : [];
			const startedAt = played.executeStarts.get(call.id);
			for (const earlier of waitsFor) {
				const endedAt = ends.get(earlier.id);
				if (startedAt !== undefined && (endedAt === undefined || endedAt > startedAt)) {
					throw new Error(
						`SPEC T6: ${cls} ${call.name} (${call.id}) started at ${startedAt} ms while ${earlier.name} (${earlier.id}) ran until ${endedAt} ms`,
					);
				}
			}
			scheduled.push(call);
			if (cls === "exclusive") lastExclusive = call;
		}
	}
}

/** SPEC T4: history, events and execution agree on the (possibly revised) arguments of every call. */
function assertEventArgsMatchHistory(played: Played, transcript: readonly AgentMessage[]): void {
	const recorded = new Map<string, Record<string, unknown>>();
	for (const message of transcript) {
		const m = message as { role?: string; content?: unknown };
		if (m.role !== "assistant") continue;
		for (const block of m.content as { type: string }[])
			if (block.type === "toolCall") recorded.set((block as ToolCall).id, (block as ToolCall).arguments);
	}
	for (const event of played.events) {
		if (event.type !== "tool_execution_start" && event.type !== "tool_execution_update") continue;
		const args = recorded.get(event.toolCallId);
		// SPEC C5: with intent tracing the intent field leaves the arguments at dispatch and rides on the start.
		const { i: intent, ...rest } = args ?? {};
		const expected = played.scenario.intentTracing ? rest : args;
		expect(event.args, `SPEC T4: ${event.type} of ${event.toolCallId}`).toEqual(expected);
		if (event.type === "tool_execution_start" && played.scenario.intentTracing)
			expect(event.intent, `SPEC C5: intent of ${event.toolCallId}`).toBe(intent);
	}
}

/**
 * SPEC L3, T7, T12: the results of a batch come right after the reply holding its calls, in call order, before
 * anything else (a steering message, a follow-up) — providers require tool results to answer at once.
 */
function assertResultsFollowTheirCalls(messages: readonly AgentMessage[]): void {
	messages.forEach((message, index) => {
		const m = message as AssistantMessage;
		if (m.role !== "assistant") return;
		const ids = m.content.flatMap((b) => (b.type === "toolCall" ? [b.id] : []));
		const next = messages
			.slice(index + 1, index + 1 + ids.length)
			.map((r) => (r as ToolResultMessage).toolCallId);
		if (ids.length > 0) expect(next, `SPEC L3/T7: results after the reply at ${index}`).toEqual(ids);
	});
}

/** Whether a result belongs to the first run (execution logs cover only it). */
function runIsFirst(played: Played, result: ToolResultMessage): boolean {
	return played.events.some((e) => e.type === "message_end" && e.message === result);
}

/** SPEC S3: at most 1 + MAX_PAUSED_TURN_CONTINUATIONS consecutive paused replies without tool calls. */
function assertPausesBounded(transcript: readonly AgentMessage[]): void {
	let run = 0;
	for (const message of transcript) {
		const m = message as AssistantMessage;
		const paused =
			m.role === "assistant" &&
			m.stopDetails?.type === "pause_turn" &&
			!m.content.some((b) => b.type === "toolCall");
		run = paused ? run + 1 : 0;
		if (run > 1 + MAX_PAUSED_TURN_CONTINUATIONS)
			throw new Error(`SPEC S3: ${run} consecutive paused replies`);
	}
}

/** SPEC L12: the outcome agrees with what the run committed. */
function assertOutcomeMatchesTranscript(end: AgentEnd, scenario: Scenario): void {
	const replies = end.messages.filter(
		(m): m is AssistantMessage => (m as { role?: string }).role === "assistant",
	);
	const last = replies[replies.length - 1];
	switch (end.outcome.type) {
		case "completed":
			for (const reply of replies)
				if (reply.stopReason === "error" || reply.stopReason === "aborted")
					throw new Error(`SPEC L12: outcome completed after a reply that ended in ${reply.stopReason}`);
			break;
		case "error":
			// The failure is committed as an assistant message carrying the same text — except a soft requirement
			// the model never met (SPEC X1), which fails the run after a normal reply.
			if (scenario.softRequirement && last?.stopReason !== "error") {
				expect(end.outcome.error).toMatch(/did not call the required tool `alpha`/);
				break;
			}
			expect(last?.stopReason, "SPEC L12: the last reply of a failed run").toBe("error");
			expect(last?.errorMessage).toBe(end.outcome.error);
			break;
		case "aborted":
			expect(["abort", "reset"]).toContain(scenario.stop.kind);
			expect(end.outcome.reason.length).toBeGreaterThan(0);
			break;
		case "deadline":
			expect(scenario.stop.kind).toBe("deadline");
			break;
	}
}
