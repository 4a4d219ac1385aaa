/**
 * The conversation's inbox: a second Restate virtual object, keyed like the conversation, holding the queues
 * a running agent reads (steering, follow-ups, abort requests).
 *
 * Why a second object: the run is an exclusive handler of the conversation object, and Restate runs one
 * exclusive handler per key at a time — a `steer` on the same object would wait for the run to end. Shared
 * handlers run concurrently but may not write state. So messages go to this object, whose short exclusive
 * handlers never block for long, and the run reads them with a journaled call (`take`), which a replay
 * answers from the journal: the run sees exactly what the first attempt saw, at the same boundary.
 */
import * as restate from "@restatedev/restate-sdk";
import type { DurableTopic } from "../durable/journal.js";
import {
	type AbortRequest,
	INBOX_TOPICS,
	type InboxPending,
	type InboxSendInput,
	inboxName,
} from "./topics.js";

const ACTIVE = "active";
/** The steering and follow-ups the active run has taken (`TakenByRun`). */
const TAKEN = "takenByRun";

function isTopic(value: unknown): value is DurableTopic {
	return typeof value === "string" && (INBOX_TOPICS as readonly string[]).includes(value);
}

function invalid(message: string): restate.TerminalError {
	// 400: a caller's mistake, reported to it once and never retried (a retry would fail the same way).
	return new restate.TerminalError(message, { errorCode: 400 });
}

async function queue(ctx: restate.ObjectSharedContext | restate.ObjectContext, topic: DurableTopic) {
	return (await ctx.get<unknown[]>(topic)) ?? [];
}

/** Queue a message (or an abort request); refuses malformed input with a terminal 400. */
async function send(ctx: restate.ObjectContext, input: InboxSendInput): Promise<void> {
	if (typeof input !== "object" || input === null || !isTopic(input.topic))
		throw invalid(`inbox ${ctx.key}: "topic" must be one of ${INBOX_TOPICS.join(", ")}`);
	if (input.topic === "abort") {
		const invocationId = input.invocationId ?? (await ctx.get<string>(ACTIVE)) ?? undefined;
		if (!invocationId) throw invalid(`inbox ${ctx.key}: no run is active, so there is nothing to abort`);
		const request: AbortRequest =
			typeof input.reason === "string" ? { invocationId, reason: input.reason } : { invocationId };
		ctx.set("abort", [...(await queue(ctx, "abort")), request]);
		return;
	}
	const message = input.message as { role?: unknown } | null | undefined;
	if (typeof message !== "object" || message === null || typeof message.role !== "string")
		throw invalid(`inbox ${ctx.key}: a ${input.topic} message must be an agent message with a "role"`);
	ctx.set(input.topic, [...(await queue(ctx, input.topic)), message]);
}

/** The steering and follow-ups one run took, kept until it ends, for a cancelled run to give back. */
interface TakenByRun {
	invocationId: string;
	steer: unknown[];
	followUp: unknown[];
}

/** What run `invocationId` has taken so far (nothing, when the record is another run's). */
async function takenBy(ctx: restate.ObjectContext, invocationId: string): Promise<TakenByRun> {
	const taken = await ctx.get<TakenByRun>(TAKEN);
	return taken?.invocationId === invocationId ? taken : { invocationId, steer: [], followUp: [] };
}

/** Put `messages` back at the front of `topic`'s queue, ahead of what arrived since, in their order. */
async function requeue(ctx: restate.ObjectContext, topic: "steer" | "followUp", messages: unknown[]) {
	if (messages.length > 0) ctx.set(topic, [...messages, ...(await queue(ctx, topic))]);
}

/**
 * The run's read: every message of `topic` (for `abort`: those aimed at this run), removed from the queue.
 * Steering and follow-ups are also noted as taken by the run, until it ends (`end`).
 */
async function take(
	ctx: restate.ObjectContext,
	input: { topic: DurableTopic; invocationId: string },
): Promise<unknown[]> {
	const all = await queue(ctx, input.topic);
	if (input.topic !== "abort") {
		if (all.length > 0) {
			ctx.clear(input.topic);
			const taken = await takenBy(ctx, input.invocationId);
			ctx.set(TAKEN, { ...taken, [input.topic]: [...taken[input.topic], ...all] });
		}
		return all;
	}
	const mine = all.filter((request) => (request as AbortRequest).invocationId === input.invocationId);
	if (mine.length > 0)
		ctx.set(
			"abort",
			all.filter((request) => (request as AbortRequest).invocationId !== input.invocationId),
		);
	return mine;
}

/**
 * One turn boundary in one call (the core reads abort, then steering): the run's abort requests when there
 * are any, leaving steering queued (rule A6: a steer sent before an abort is still queued after it), else
 * every steering message. One call instead of two halves the boundary's cost.
 */
async function boundary(
	ctx: restate.ObjectContext,
	input: { invocationId: string },
): Promise<{ abort: unknown[]; steer: unknown[] }> {
	const abort = await take(ctx, { topic: "abort", invocationId: input.invocationId });
	if (abort.length > 0) return { abort, steer: [] };
	return { abort, steer: await take(ctx, { topic: "steer", invocationId: input.invocationId }) };
}

/** What a run tells the inbox when it ends. */
export interface InboxEndInput {
	invocationId: string;
	/** Steering it took at a boundary but did not use (it was stopped first): requeued. */
	unreadSteering?: unknown[];
	/**
	 * It was cancelled: its transcript is not written, so every steering message and follow-up it took (read
	 * or not, including by a call the cancel overtook) is requeued, whatever `unreadSteering` says.
	 */
	cancelled?: boolean;
}

/** What a run tells the inbox when it begins. */
export interface InboxBeginInput {
	invocationId: string;
	/**
	 * The conversation's record of the last run that wrote its transcript (`end`'s input for it): should that
	 * run's `end` never have reached the inbox, only its unread steering goes back, the rest being in the
	 * transcript.
	 */
	previous?: InboxEndInput;
}

/** The inbox's own handler `begin` calls, as a one-way call sees it (the object is being defined). */
type InboxSelf = {
	watch: (ctx: restate.ObjectSharedContext, invocationId: string) => Promise<void>;
};

/** The conversation object's handler a watch calls: it finishes what a run that failed for good left undone. */
type ConversationRunCloser = {
	closeRun: (ctx: restate.ObjectContext, invocationId: string) => Promise<void>;
};

/**
 * Wait, without holding the inbox (a shared handler; Restate suspends it), for run `invocationId` to end.
 * A run that completed told the inbox itself. One that failed for good may not have: with 409 (cancelled,
 * or killed: Restate then runs none of its code, and a kill stops the calls it had not seen finish, its `end`
 * among them), or with any other terminal error (a host's `onEvent` threw one: the run tells no one either).
 * The conversation's `closeRun` then finishes what the run left undone: it knows whether the run wrote its
 * transcript, so whether the inbox gives back everything the run took or only its unread steering, and it
 * stops `running` naming the run. The inbox's `end` acts only if the run is still the one it names, so after
 * the run's own `end` or the next run's `begin` it does nothing. A cancel of the watch itself
 * (`CancelledError`) says nothing of the run, so it is left alone.
 */
async function watch(
	ctx: restate.ObjectSharedContext,
	conversationName: string,
	invocationId: string,
): Promise<void> {
	try {
		await ctx.invocation(restate.InvocationIdParser.fromString(invocationId)).attach();
		return;
	} catch (error) {
		const failedForGood =
			error instanceof restate.TerminalError && !(error instanceof restate.CancelledError);
		if (!failedForGood) throw error;
	}
	ctx.objectSendClient<ConversationRunCloser>({ name: conversationName }, ctx.key).closeRun(invocationId);
}

/** The inbox object for the conversation object `conversationName` (named `<conversationName>Inbox`). */
export function conversationInbox(conversationName: string) {
	return restate.object({
		name: inboxName(conversationName),
		handlers: {
			send,
			take,
			boundary,
			/**
			 * The run starts reading: abort requests without a run now aim at it. What an earlier run took and
			 * never ended with (it was killed before its watch told the inbox) goes back to the front of the
			 * queues first, so this run reads it: as a cancelled run's does, everything, unless the conversation
			 * says that run wrote its transcript (`previous`), then only its unread steering. Then the run is
			 * watched (`watch`): a one-way call of this call's, which a kill of the run, once `begin` has
			 * returned, does not stop. A run of capstan's earlier versions sends its id alone (a string): one
			 * still in flight when the workers are upgraded calls this `begin`, so it is taken too.
			 */
			begin: async (ctx: restate.ObjectContext, input: InboxBeginInput | string) => {
				const { invocationId, previous }: InboxBeginInput =
					typeof input === "string" ? { invocationId: input } : input;
				const taken = await ctx.get<TakenByRun>(TAKEN);
				if (taken && taken.invocationId !== invocationId) {
					if (previous?.invocationId === taken.invocationId)
						await requeue(ctx, "steer", previous.unreadSteering ?? []);
					else {
						await requeue(ctx, "steer", taken.steer);
						await requeue(ctx, "followUp", taken.followUp);
					}
				}
				ctx.set(ACTIVE, invocationId);
				ctx.clear(TAKEN);
				ctx.objectSendClient<InboxSelf>({ name: inboxName(conversationName) }, ctx.key).watch(invocationId);
			},
			watch: restate.handlers.object.shared(
				(ctx: restate.ObjectSharedContext, invocationId: string): Promise<void> =>
					watch(ctx, conversationName, invocationId),
			),
			/**
			 * The run ended: its unread abort requests are dropped (they can never apply); steering it took but
			 * never used goes back to the front of the queue, for the next run — for a cancelled run, whose
			 * transcript is not written, every steering message and follow-up it took, in the order it took
			 * them, so no message a user sent is lost (a killed run's comes from its `watch`, through the
			 * conversation's `closeRun`). Once per run: a run whose first `end` met a cancel sends it again, not
			 * knowing whether the first ran, and a cancelled or killed run's watch sends one too; the steering must
			 * not be queued twice.
			 */
			end: async (
				ctx: restate.ObjectContext,
				{ invocationId, unreadSteering = [], cancelled = false }: InboxEndInput,
			) => {
				if ((await ctx.get<string>(ACTIVE)) === invocationId) {
					ctx.clear(ACTIVE);
					const taken = await takenBy(ctx, invocationId);
					await requeue(ctx, "steer", cancelled ? taken.steer : unreadSteering);
					if (cancelled) await requeue(ctx, "followUp", taken.followUp);
					ctx.clear(TAKEN);
				}
				const aborts = await queue(ctx, "abort");
				const left = aborts.filter((request) => (request as AbortRequest).invocationId !== invocationId);
				if (left.length !== aborts.length) ctx.set("abort", left);
			},
			pending: restate.handlers.object.shared(
				async (ctx: restate.ObjectSharedContext): Promise<InboxPending> => ({
					steer: (await queue(ctx, "steer")).length,
					followUp: (await queue(ctx, "followUp")).length,
					abort: (await queue(ctx, "abort")).length,
					active: (await ctx.get<string>(ACTIVE)) ?? null,
				}),
			),
		},
	});
}

/** The inbox object's type, for typed calls from the conversation object. */
export type ConversationInbox = ReturnType<typeof conversationInbox>;
