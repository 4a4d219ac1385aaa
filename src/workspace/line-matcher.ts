/**
 * `search_text` matches the model's regular expression in a worker thread. A JavaScript regex can backtrack
 * for longer than the universe lasts (`^(a+)+$` on forty `a`s and a `b`), and on the main thread nothing —
 * not an abort, not a timer — can stop it: the whole host would freeze. In a worker, an abort or the search's
 * time limit terminates the thread, which stops the regex where it is.
 */
import { Worker } from "node:worker_threads";

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

/** What one batch returns: the matches, and whether `limit` stopped it early (more would have matched). */
export interface BatchMatches {
	matches: LineMatch[];
	truncated: boolean;
}

interface BatchRequest {
	files: MatchFile[];
	limit: number;
}

/**
 * The worker's whole program. Its source text is the worker's script, so it must stay self-contained: no
 * imports, nothing from the enclosing module. Lines end at `\r\n`, `\n` or a lone `\r`, as `read_file`
 * counts them, so a match's line number is the line `read_file` shows under that number.
 */
function matcherProgram(): void {
	const { parentPort, workerData } = require("node:worker_threads") as typeof import("node:worker_threads");
	const { source, flags, maxLineChars } = workerData as {
		source: string;
		flags: string;
		maxLineChars: number;
	};
	const regex = new RegExp(source, flags);
	const cut = (line: string): string => {
		if (line.length <= maxLineChars) return line;
		const last = line.charCodeAt(maxLineChars - 1);
		// Never split a surrogate pair.
		return `${line.slice(0, last >= 0xd800 && last <= 0xdbff ? maxLineChars - 1 : maxLineChars)}…`;
	};
	parentPort?.on("message", ({ files, limit }: BatchRequest) => {
		const matches: LineMatch[] = [];
		let truncated = false;
		search: for (const file of files) {
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
		parentPort.postMessage({ matches, truncated });
	});
}

/** Why a search was stopped from outside its worker. */
export type MatchStop = { type: "aborted"; reason: unknown } | { type: "timeout" };

/**
 * One search's worker: started with the compiled pattern, fed batches of files, terminated by {@link close},
 * by the signal, or when `timeoutMs` has passed since it started.
 */
export class LineMatcher {
	private readonly worker: Worker;
	private readonly timer: ReturnType<typeof setTimeout>;
	private pending: { resolve: (value: BatchMatches) => void; reject: (error: unknown) => void } | undefined;
	private failure: unknown;
	private closed = false;
	private readonly onAbort: () => void;

	constructor(
		regex: RegExp,
		maxLineChars: number,
		timeoutMs: number,
		private readonly signal: AbortSignal,
		describeStop: (stop: MatchStop) => Error,
	) {
		this.worker = new Worker(`(${matcherProgram.toString()})()`, {
			eval: true,
			workerData: { source: regex.source, flags: regex.flags, maxLineChars },
		});
		// A search in progress keeps the process alive through its pending promise, not through the thread.
		this.worker.unref();
		this.worker.on("message", (result: BatchMatches) => this.settle(undefined, result));
		this.worker.on("error", (error) => this.fail(error));
		this.worker.on("exit", (code) => this.fail(new Error(`the search's worker stopped (exit code ${code})`)));
		this.timer = setTimeout(() => this.fail(describeStop({ type: "timeout" })), timeoutMs);
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
			this.worker.postMessage({ files, limit } satisfies BatchRequest);
		});
	}

	/** Throw what stopped the search (its time limit, an abort), if anything has. */
	throwIfStopped(): void {
		if (this.failure !== undefined) throw this.failure;
	}

	/** End the worker (idempotent). */
	close(): void {
		if (this.closed) return;
		this.closed = true;
		clearTimeout(this.timer);
		this.signal.removeEventListener("abort", this.onAbort);
		void this.worker.terminate();
	}

	private fail(error: unknown): void {
		if (this.closed && this.failure === undefined && this.pending === undefined) return;
		if (this.failure === undefined) this.failure = error;
		this.close();
		this.settle(this.failure, undefined);
	}

	private settle(error: unknown, result: BatchMatches | undefined): void {
		const pending = this.pending;
		this.pending = undefined;
		if (!pending) return;
		if (result !== undefined && error === undefined) pending.resolve(result);
		else pending.reject(error);
	}
}
