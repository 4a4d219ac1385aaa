/**
 * Retry policy (rule A8): which failures are retried and after how long. Pure functions; the waiting itself
 * happens in `runProviderStream` with `setTimeout`, so tests can drive it with fake timers or tiny delays.
 */
import type { ProviderError } from "./errors.js";
import { TRANSIENT_ERROR_KINDS } from "./errors.js";

/** Retry knobs, all optional; see the defaults below. */
export interface RetryPolicy {
	/** Retries after the first attempt. Default 2, i.e. at most 3 attempts in total. */
	maxRetries?: number;
	/** First backoff delay in ms, doubled per retry. Default 1000. */
	retryBaseDelayMs?: number;
	/**
	 * Longest delay in ms: caps the backoff, and a server asking (`retry-after`) for longer than this is not
	 * retried at all, the error goes to the host at once. Default 60000.
	 */
	retryMaxDelayMs?: number;
	/** Jitter source in [0, 1). Default `Math.random`. */
	random?: () => number;
}

/** Default retry count: 3 attempts in total. */
export const DEFAULT_MAX_RETRIES = 2;
/** Default first backoff delay. */
export const DEFAULT_RETRY_BASE_DELAY_MS = 1000;
/** Default delay ceiling. */
export const DEFAULT_RETRY_MAX_DELAY_MS = 60_000;

/** What the runner knows about the failed attempt. */
export interface AttemptState {
	/** 1-based number of the attempt that failed. */
	attempt: number;
	/** A response byte arrived on this attempt. */
	firstByteSeen: boolean;
	/** The reply already holds content blocks (nothing is retried after that). */
	contentStarted: boolean;
}

/** True when `error` may be retried at all, regardless of counts: transient kind, no content yet. */
export function isRetryable(error: ProviderError, state: AttemptState): boolean {
	if (state.contentStarted) return false;
	if (error.retryable === false) return false;
	if (error.retryable !== true && !TRANSIENT_ERROR_KINDS.has(error.kind)) return false;
	// A drop or stall after the server started answering may have been billed; only retry those before it.
	// (An HTTP status such as 504 is a complete answer, not a drop: it stays retryable.)
	const midBody = state.firstByteSeen && error.status === undefined;
	if ((error.kind === "network" || error.kind === "timeout") && midBody) return false;
	return true;
}

/** Delay before the next attempt in ms, or `undefined` when the failure must be reported instead. */
export function retryDelayMs(
	error: ProviderError,
	state: AttemptState,
	policy: RetryPolicy = {},
): number | undefined {
	const maxRetries = policy.maxRetries ?? DEFAULT_MAX_RETRIES;
	// Written as "not within": a `maxRetries` of NaN (an unparsed setting) retries nothing, not for ever.
	if (!(state.attempt <= maxRetries) || !isRetryable(error, state)) return undefined;
	const maxDelay = policy.retryMaxDelayMs ?? DEFAULT_RETRY_MAX_DELAY_MS;
	if (error.retryAfterMs !== undefined)
		return error.retryAfterMs <= maxDelay ? error.retryAfterMs : undefined;
	const base = policy.retryBaseDelayMs ?? DEFAULT_RETRY_BASE_DELAY_MS;
	const exponential = Math.min(maxDelay, base * 2 ** (state.attempt - 1));
	const random = policy.random ?? Math.random;
	// "Equal jitter": at least half the exponential delay, so retries never stampede at zero.
	return Math.round(exponential / 2 + (exponential / 2) * random());
}
