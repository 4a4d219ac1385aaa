/**
 * An in-memory durable engine for tests and examples: a journal and an inbox that survive a simulated crash.
 * Each `attempt()` is one "process"; `crash()` kills it (its steps never record again, its pending
 * `run`s never settle) and the next attempt replays from the records. Real journal semantics, no engine.
 */
import type { DurableInbox, DurableJournal, DurableTopic } from "./journal.js";

/** One attempt's view of a `MemoryJournal`: the journal and inbox a workflow body is given. */
export interface MemoryAttempt {
	/** This attempt's journal. */
	readonly journal: DurableJournal;
	/** This attempt's inbox over the journal's queues (each read journaled as `inbox:<topic>:<n>`). */
	readonly inbox: DurableInbox;
	/** Names whose `fn` ran in this attempt (a step that was replayed from its record is not listed). */
	readonly executed: readonly string[];
	/** Kill this attempt: every pending and later `run` of it never settles, nothing more is recorded. */
	crash(): void;
}

/** Crash the attempt when a step it names finishes running live: its side effects happened, its record is lost. */
export type CrashPoint = (name: string) => boolean;

/** The durable store shared by every attempt: step records and queued messages, as JSON text. */
export class MemoryJournal {
	/** Each record with the call position it was made at, checked on replay like an engine numbering steps. */
	readonly #records = new Map<string, { position: number; text: string }>();
	readonly #queues = new Map<DurableTopic, string[]>();
	#current: { dead: boolean } | undefined;

	/** The recorded step names, in record order. */
	get recorded(): string[] {
		return [...this.#records.keys()];
	}

	/** Queue a message for the run, as another process would (JSON, like an engine's message table). */
	send(topic: DurableTopic, message: unknown): void {
		const queue = this.#queues.get(topic) ?? [];
		queue.push(JSON.stringify(message));
		this.#queues.set(topic, queue);
	}

	/**
	 * Start an attempt (a fresh "process"); any previous attempt is dead from now on. `crashAt` kills this one
	 * when a step it names finishes running, before the record.
	 */
	attempt(crashAt?: CrashPoint): MemoryAttempt {
		if (this.#current) this.#current.dead = true;
		const life = { dead: false };
		this.#current = life;
		const executed: string[] = [];
		const used = new Set<string>();
		let calls = 0;
		const takes = new Map<DurableTopic, number>();
		const hang = new Promise<never>(() => {});
		const journal: DurableJournal = {
			run: async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
				if (life.dead) return hang;
				if (used.has(name)) throw new Error(`journal: step name "${name}" used twice in one run`);
				used.add(name);
				const position = calls++;
				const recorded = this.#records.get(name);
				if (recorded !== undefined) {
					if (recorded.position !== position)
						throw new Error(
							`journal: step "${name}" was call ${recorded.position} when recorded but is call ${position} now: the run is not deterministic`,
						);
					return JSON.parse(recorded.text) as T;
				}
				executed.push(name);
				const value = await fn();
				if (crashAt?.(name)) life.dead = true;
				if (life.dead) return hang;
				// JSON like a real engine: a result that does not survive serialisation fails here, not on replay.
				const text = JSON.stringify(value) ?? "null";
				this.#records.set(name, { position, text });
				return JSON.parse(text) as T;
			},
		};
		const inbox: DurableInbox = {
			take: (topic) => {
				const n = takes.get(topic) ?? 0;
				takes.set(topic, n + 1);
				return journal.run(`inbox:${topic}:${n}`, async () => {
					const queue = this.#queues.get(topic) ?? [];
					this.#queues.set(topic, []);
					return queue.map((text) => JSON.parse(text) as unknown);
				});
			},
		};
		return {
			journal,
			inbox,
			executed,
			crash() {
				life.dead = true;
			},
		};
	}
}
