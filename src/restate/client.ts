/**
 * Talking to durable agents from any process — a web server, a CLI, another service — through the Restate
 * server's HTTP ingress: start a run, wait for it, steer it, queue a follow-up, abort it, read the transcript.
 * Plain `fetch`, so a caller needs no Restate SDK.
 */
import { type AgentMessage, userMessage } from "../core/messages.js";
import { redactSecrets, requestCredentials } from "../core/redact.js";
import type { ApprovalDecisions, PendingApproval } from "../tools/approval.js";
import type { RestateConversationStatus, RestateRunInput, RestateRunResult } from "./object.js";
import { type InboxPending, inboxName } from "./topics.js";
import { splitCredentials, withAuthorization } from "./url.js";

/** Options of {@link RestateAgentClient}. */
export interface RestateAgentClientOptions {
	/**
	 * The Restate server's ingress, e.g. `http://127.0.0.1:8080`. Credentials in it (`https://user:password@…`)
	 * are sent as a Basic `authorization` header (unless `headers` set one) and never appear in errors.
	 */
	ingressUrl: string;
	/** The agent's object name, as given to `restateAgent`. */
	name: string;
	/** Extra headers on every request (e.g. an API gateway's authorization). Never included in errors. */
	headers?: Record<string, string>;
	/** Default `globalThis.fetch`. */
	fetch?: typeof fetch;
}

/** A run started with {@link RestateAgentClient.start}. */
export interface StartedRun {
	/** The Restate invocation id: wait for it with `result`, abort it with `abort`. */
	invocationId: string;
}

/** An error answer of the Restate ingress (or of a handler, passed through it). */
export class RestateRequestError extends Error {
	/** Always `"RestateRequestError"`. */
	override readonly name = "RestateRequestError";
	/** The HTTP status of the answer. */
	readonly status: number;
	constructor(what: string, status: number, detail: string) {
		super(`${what}: Restate answered ${status}${detail ? `: ${detail}` : ""}`);
		this.status = status;
	}
}

/** A client for one durable agent's conversations, over the Restate ingress. */
export class RestateAgentClient {
	readonly #base: string;
	readonly #name: string;
	readonly #headers: Record<string, string>;
	/** The credentials of the URL and headers, masked in error texts (rule E3): a proxy may quote them. */
	readonly #secrets: string[];
	readonly #fetch: typeof fetch;

	constructor(options: RestateAgentClientOptions) {
		let url: URL;
		try {
			url = new URL(options.ingressUrl);
		} catch {
			throw new Error("RestateAgentClient: ingressUrl is not a valid URL");
		}
		const { base, authorization } = splitCredentials(url);
		this.#base = base;
		this.#name = options.name;
		this.#headers = withAuthorization({ ...options.headers }, authorization);
		this.#secrets = requestCredentials(options.ingressUrl, [this.#headers]);
		this.#fetch = options.fetch ?? globalThis.fetch;
	}

	/**
	 * Start a run on conversation `key` without waiting for it. Runs of one conversation execute one at a time,
	 * in the order they were started. `idempotencyKey` makes a retried start (say, after a timeout) the same run.
	 */
	async start(key: string, input: RestateRunInput = {}, idempotencyKey?: string): Promise<StartedRun> {
		const headers: Record<string, string> = idempotencyKey ? { "idempotency-key": idempotencyKey } : {};
		const answer = await this.#post<{ invocationId?: unknown }>(
			`start a run of ${key}`,
			`${this.#object(key)}/run/send`,
			input,
			headers,
		);
		if (typeof answer.invocationId !== "string")
			throw new Error(`start a run of ${key}: Restate answered without an invocation id`);
		return { invocationId: answer.invocationId };
	}

	/** Run on conversation `key` and wait for the result (for short runs; see `start` and `result`). */
	run(key: string, input: RestateRunInput = {}): Promise<RestateRunResult> {
		return this.#post(`run ${key}`, `${this.#object(key)}/run`, input);
	}

	/**
	 * Wait for a started run to end, however many workers it took. A run cancelled through Restate rejects
	 * with a `RestateRequestError` of status 409, and left the transcript as it was; a cancel that came once
	 * the run's loop had ended was too late, and the run's result comes back as usual. A run cancelled while it
	 * was still queued behind another run of the conversation never ran, and Restate keeps no result of it: a
	 * `result` already waiting rejects with 409, one called after the cancel with 404.
	 */
	result(run: StartedRun): Promise<RestateRunResult> {
		const id = encodeURIComponent(run.invocationId);
		return this.#request(`wait for ${run.invocationId}`, `restate/invocation/${id}/attach`, {
			method: "GET",
		});
	}

	/**
	 * The calls the conversation's last run left awaiting approval (rule T15), empty when it did not pause.
	 * The same list as that run's `outcome.pending`, kept in the conversation's state for any process.
	 */
	pendingApprovals(key: string): Promise<PendingApproval[]> {
		return this.#post(`read the pending approvals of ${key}`, `${this.#object(key)}/pendingApprovals`, null);
	}

	/**
	 * Resume a conversation paused for approval with a decision per pending call (rule T16), without waiting:
	 * a run that continues the paused batch (`start(key, { approvals })`); wait for it with `result`. Runs of a
	 * conversation execute one at a time, so a second resume of the same batch runs after the first and fails
	 * (with a 400 from `result`): those calls are answered, and the approved tools ran once.
	 */
	resume(key: string, approvals: ApprovalDecisions, idempotencyKey?: string): Promise<StartedRun> {
		return this.start(key, { approvals }, idempotencyKey);
	}

	/** Queue a steering message: the running agent reads it at its next turn boundary. */
	steer(key: string, message: string | AgentMessage): Promise<void> {
		return this.#send(key, { topic: "steer", message: asMessage(message) });
	}

	/** Queue a follow-up: read when the running agent would otherwise stop. */
	followUp(key: string, message: string | AgentMessage): Promise<void> {
		return this.#send(key, { topic: "followUp", message: asMessage(message) });
	}

	/**
	 * Ask a run to stop: it ends as aborted at its next turn boundary (a running tool finishes first). Without
	 * `invocationId`, the run active now; when none is, this rejects (nothing is queued for a later run).
	 */
	abort(key: string, options: { reason?: string; invocationId?: string } = {}): Promise<void> {
		return this.#send(key, { topic: "abort", ...options });
	}

	/** The conversation's transcript as of its last finished run. */
	transcript(key: string): Promise<AgentMessage[]> {
		return this.#post(`read the transcript of ${key}`, `${this.#object(key)}/transcript`, null);
	}

	/** The run in progress on `key`, if any, and the transcript's length. */
	status(key: string): Promise<RestateConversationStatus> {
		return this.#post(`read the status of ${key}`, `${this.#object(key)}/status`, null);
	}

	/** How many steering, follow-up and abort messages wait in `key`'s inbox. */
	pending(key: string): Promise<InboxPending> {
		return this.#post(`read the inbox of ${key}`, `${this.#inbox(key)}/pending`, null);
	}

	#object(key: string): string {
		return `${this.#name}/${encodeURIComponent(key)}`;
	}

	#inbox(key: string): string {
		return `${inboxName(this.#name)}/${encodeURIComponent(key)}`;
	}

	async #send(key: string, body: object): Promise<void> {
		await this.#post(`send to the inbox of ${key}`, `${this.#inbox(key)}/send`, body);
	}

	#post<T>(what: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
		return this.#request(what, path, {
			method: "POST",
			headers: { "content-type": "application/json", ...headers },
			body: JSON.stringify(body),
		});
	}

	async #request<T>(what: string, path: string, init: RequestInit): Promise<T> {
		let response: Response;
		try {
			response = await this.#fetch(`${this.#base}/${path}`, {
				...init,
				headers: { ...this.#headers, ...(init.headers as Record<string, string> | undefined) },
			});
		} catch (error) {
			const cause = error instanceof Error ? (error.cause ?? error) : error;
			throw new Error(
				`${what}: the Restate ingress is unreachable (${String((cause as Error).message ?? cause)})`,
			);
		}
		const text = await response.text();
		if (!response.ok)
			throw new RestateRequestError(what, response.status, errorDetail(redactSecrets(text, this.#secrets)));
		return (text === "" ? undefined : JSON.parse(text)) as T;
	}
}

function asMessage(message: string | AgentMessage): AgentMessage {
	return typeof message === "string" ? userMessage(message) : message;
}

/** Restate's error body is `{ message }`; keep it short, it is a message for a person. */
function errorDetail(text: string): string {
	try {
		const parsed = JSON.parse(text) as { message?: unknown };
		if (typeof parsed.message === "string") return parsed.message.slice(0, 500);
	} catch {}
	return text.slice(0, 500);
}
