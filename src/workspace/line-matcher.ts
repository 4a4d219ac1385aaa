/**
 * `search_text` matches the model's regular expression in a worker thread. A JavaScript regex can backtrack
 * for longer than the universe lasts (`^(a+)+$` on forty `a`s and a `!`), and on the main thread nothing —
 * not an abort, not a timer — can stop it: the whole host would freeze. In a worker, an abort or the search's
 * time limit terminates the thread, which stops the regex where it is.
 *
 * Starting a worker costs tens of milliseconds, so the worker of a search that ended normally is kept, idle
 * and unreferenced (it never holds the process open), for the next search; a stopped one is terminated.
 */
import { Worker } from "node:worker_threads";
import { MAX_TIMER_DELAY_MS } from "../core/timer.js";

/** One file's text, to match line by line. */
export interface MatchFile {
	path: string;
	text: string;
}

/** One matching line: its file, its 1-based number and its text (cut to `maxLineChars`, with `…`). */
export interface LineMatch {
	path: string;
	line: number;
	text: string;
}

/** What one batch returns. */
export interface BatchMatches {
	matches: LineMatch[];
	/** True when `limit` stopped the batch early: another line matched after the last one returned. */
	truncated: boolean;
	/** Files of the batch gone through: all of them, or up to the one where the limit stopped it. */
	searched: number;
}

type Request =
	| { type: "pattern"; source: string; flags: string; maxLineChars: number }
	| { type: "batch"; files: MatchFile[]; limit: number };

/**
 * The worker's whole program. Its source text is the worker's script, so it must stay self-contained: no
 * imports, nothing from the enclosing module. Lines end at `\r\n`, `\n` or a lone `\r`, as `read_file`
 * counts them, so a match's line number is the line `read_file` shows under that number.
 */
function matcherProgram(): void {
	const { parentPort } = require("node:worker_threads") as typeof import("node:worker_threads");
	let regex = /$^/;
	let maxLineChars = 0;
	const cut = (line: string): string => {
		if (line.length <= maxLineChars) return line;
		const last = line.charCodeAt(maxLineChars - 1);
		// Never split a surrogate pair.
		return `${line.slice(0, last >= 0xd800 && last <= 0xdbff ? maxLineChars - 1 : maxLineChars)}…`;
	};
	parentPort?.on("message", (request: Request) => {
		if (request.type === "pattern") {
			regex = new RegExp(request.source, request.flags);
			maxLineChars = request.maxLineChars;
			return;
		}
		const { files, limit } = request;
		const matches: LineMatch[] = [];
		let truncated = false;
		let searched = 0;
		search: for (const file of files) {
			searched++;
			const lines = file.text.split(/\r\n|\n|\r/);
			// A final line break ends the last line; it does not start an empty one.
			if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
			for (let i = 0; i < lines.length; i++) {
				const line = lines[i] as string;
				if (!regex.test(line)) continue;
				if (matches.length >= limit) {
					truncated = true;
					break search;
				}
				matches.push({ path: file.path, line: i + 1, text: cut(line) });
			}
		}
		parentPort.postMessage({ matches, truncated, searched } satisfies BatchMatches);
	});
}

/**
 * What a transpiler may have put into {@link matcherProgram}'s text: esbuild's `keepNames` (tsx runs
 * `npm run capstan` and the examples with it) wraps the named inner functions in calls to its `__name`
 * helper, which the worker's own scope lacks — every search would fail with "__name is not defined".
 */
const TRANSPILER_HELPERS = "var __name = (target) => target;\n";

/** The worker a search that ended normally left behind, for the next one. */
let idle: Worker | undefined;

function acquireWorker(): Worker {
	const worker = idle ?? startWorker();
	idle = undefined;
	// Referenced while a search waits on it: the pending reply alone would not keep the process running.
	worker.ref();
	return worker;
}

function startWorker(): Worker {
	// None of the host's flags: with `--input-type=module` (a host run by `node -e` or from stdin) the script
	// would be an ES module, without the `require` it starts with.
	const worker = new Worker(`${TRANSPILER_HELPERS}(${matcherProgram.toString()})()`, {
		eval: true,
		execArgv: [],
	});
	// Listening for good: an idle worker that fails must neither be handed out nor crash the host.
	const forget = () => {
		if (idle === worker) idle = undefined;
	};
	worker.on("error", forget);
	worker.on("exit", forget);
	return worker;
}

/** Why a search was stopped from outside its worker. */
export type MatchStop = { type: "aborted"; reason: unknown } | { type: "timeout" };

/**
 * One search's worker: set to the compiled pattern, fed batches of files, and ended by {@link close} (kept for
 * the next search), by the signal or after `timeoutMs` (0 or `Infinity`: no limit; terminated).
 */
export class LineMatcher {
	private readonly worker: Worker;
	private readonly timer: ReturnType<typeof setTimeout> | undefined;
	private pending: { resolve: (value: BatchMatches) => void; reject: (error: unknown) => void } | undefined;
	private failure: unknown;
	private closed = false;
	private readonly onAbort: () => void;
	private readonly onMessage = (result: BatchMatches) => {
		const pending = this.pending;
		this.pending = undefined;
		pending?.resolve(result);
	};
	private readonly onError = (error: Error) => this.fail(error);
	private readonly onExit = (code: number) =>
		this.fail(new Error(`the search's worker stopped (exit code ${code})`));

	constructor(
		regex: RegExp,
		maxLineChars: number,
		timeoutMs: number,
		private readonly signal: AbortSignal,
		describeStop: (stop: MatchStop) => Error,
	) {
		this.worker = acquireWorker();
		this.worker.on("message", this.onMessage);
		this.worker.on("error", this.onError);
		this.worker.on("exit", this.onExit);
		this.post({ type: "pattern", source: regex.source, flags: regex.flags, maxLineChars });
		if (timeoutMs > 0 && Number.isFinite(timeoutMs))
			this.timer = setTimeout(
				() => this.fail(describeStop({ type: "timeout" })),
				Math.min(timeoutMs, MAX_TIMER_DELAY_MS),
			);
		this.onAbort = () => this.fail(describeStop({ type: "aborted", reason: signal.reason }));
		if (signal.aborted) this.onAbort();
		else signal.addEventListener("abort", this.onAbort, { once: true });
	}

	/** Match a batch of files; at most `limit` matches come back. Rejects once the search is stopped. */
	match(files: MatchFile[], limit: number): Promise<BatchMatches> {
		if (this.failure !== undefined) return Promise.reject(this.failure);
		if (this.closed) return Promise.reject(new Error("the search has ended"));
		return new Promise((resolve, reject) => {
			this.pending = { resolve, reject };
			this.post({ type: "batch", files, limit });
		});
	}

	/** Throw what stopped the search (its time limit, an abort), if anything has. */
	throwIfStopped(): void {
		if (this.failure !== undefined) throw this.failure;
	}

	/** End the search (idempotent): the worker is kept for the next one unless this search was stopped. */
	close(): void {
		if (this.closed) return;
		this.closed = true;
		if (this.timer !== undefined) clearTimeout(this.timer);
		this.signal.removeEventListener("abort", this.onAbort);
		this.worker.off("message", this.onMessage);
		this.worker.off("error", this.onError);
		this.worker.off("exit", this.onExit);
		// A worker may still be matching only when the search was stopped, and then it is never reused.
		if (this.failure === undefined && this.pending === undefined && idle === undefined) {
			this.worker.unref();
			idle = this.worker;
		} else void this.worker.terminate();
	}

	private post(request: Request): void {
		this.worker.postMessage(request);
	}

	private fail(error: unknown): void {
		if (this.failure !== undefined || (this.closed && this.pending === undefined)) return;
		this.failure = error;
		const pending = this.pending;
		this.pending = undefined;
		this.close();
		pending?.reject(error);
	}
}
