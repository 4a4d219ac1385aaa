/**
 * What the conversation's inbox holds and answers, as plain types: shared by the inbox object (inbox.ts), the
 * client, and capstan's public declarations, which import no Restate SDK types.
 */
import type { DurableTopic } from "../durable/journal.js";

/** Every topic of the inbox, in the order the `pending` handler reports them. */
export const INBOX_TOPICS: readonly DurableTopic[] = ["steer", "followUp", "abort"];

/** An abort request, aimed at one run (its Restate invocation id). */
export interface AbortRequest {
	/** The run to abort (its Restate invocation id). */
	invocationId: string;
	/** The reason the run's outcome carries; default the core's `DURABLE_ABORT_REASON`. */
	reason?: string;
}

/** What `send` accepts: a message for a topic; an abort names its run, or the run active at the time. */
export interface InboxSendInput {
	/** Which queue: `steer`, `followUp` or `abort`. */
	topic: DurableTopic;
	/** The message (`steer`, `followUp`): an `AgentMessage` as JSON. */
	message?: unknown;
	/** `abort`: the reason the run ends with. */
	reason?: string;
	/** `abort`: the run to abort; default the run active now (an error when none is). */
	invocationId?: string;
}

/** How many messages wait on each topic, and the active run (`inboxPending`). */
export interface InboxPending {
	/** Steering messages not yet read by a run. */
	steer: number;
	/** Follow-ups not yet read by a run. */
	followUp: number;
	/** Abort requests not yet read by the run they aim at. */
	abort: number;
	/** The invocation id of the run reading this inbox now, if one is. */
	active: string | null;
}

/** The Restate name of a conversation object's inbox. */
export function inboxName(conversationName: string): string {
	return `${conversationName}Inbox`;
}
