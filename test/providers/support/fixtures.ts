/**
 * Recorded provider streams for conformance tests — how to use them (for every provider author):
 *
 * ```ts
 * import { fixturesFor, responseBodies } from "../support/fixtures.js";
 * import { startReplayServer } from "../support/replay-server.js";
 *
 * for (const fixture of fixturesFor(["openai-chat", "openai-compatible-groq"])) {
 *   const bodies = responseBodies(fixture);          // one Uint8Array per recorded HTTP response
 *   const server = await startReplayServer(bodies.map((body) => ({ type: "sse", body, split: { seed: 7 } })));
 *   // point the model's baseUrl at server.baseUrl, stream, compare with the recording's own facts
 *   await server.close();
 * }
 * ```
 *
 * - Fixtures live in `test/fixtures/provider-streams` (copied byte for byte from the recordings, with their
 *   README, `index.json` and `LICENSES/`). They are read-only: never edit them.
 * - Raw SSE files (`*.sse`, `*.bin`, FirebaseExtended `*.txt`) are served byte for byte, one response each.
 * - JSONL chunk files (`*.chunks.txt`) are re-framed exactly as the fixtures README says for their folder
 *   (`framingFor`), and split into several HTTP responses where one file holds several (at each
 *   `message_start` for Anthropic, each `response.created` for OpenAI Responses).
 * - `recordedEvents(body)` decodes a body back into `{event, data}` pairs with an independent SSE parse, so
 *   per-API "expected facts" extractors (each provider folder's `facts.ts`) compare our decoder against the recording,
 *   not against hand-written values.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createParser } from "eventsource-parser";

/** Absolute path of the repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Absolute path of the recorded provider streams. */
export const FIXTURES_ROOT = resolve(REPO_ROOT, "test/fixtures/provider-streams");

/** One entry of the fixtures' `index.json`. */
export interface FixtureInfo {
	/** Path relative to the fixtures root, e.g. `anthropic-messages/anthropic-text.chunks.txt`. */
	file: string;
	/** Folder name / dialect, e.g. `anthropic-messages`, `openai-compatible-groq`. */
	api: string;
	format: "jsonl-chunks" | "raw-sse";
	description: string;
}

let index: FixtureInfo[] | undefined;

/** Every fixture listed in `index.json`. */
export function allFixtures(): FixtureInfo[] {
	index ??= JSON.parse(readFileSync(resolve(FIXTURES_ROOT, "index.json"), "utf8")) as FixtureInfo[];
	return index;
}

/** Fixtures of the given folders / dialects, in index order. */
export function fixturesFor(apis: readonly string[]): FixtureInfo[] {
	return allFixtures().filter((fixture) => apis.includes(fixture.api));
}

/** The first fixture of `apis` whose path contains `name`; throws when there is none. */
export function fixtureMatching(apis: readonly string[], name: string): FixtureInfo {
	const fixture = fixturesFor(apis).find((candidate) => candidate.file.includes(name));
	if (!fixture) throw new Error(`no fixture of ${apis.join(", ")} matches ${name}`);
	return fixture;
}

/** The first response body of the fixture `fixtureMatching` finds. */
export function firstBodyMatching(apis: readonly string[], name: string): Uint8Array {
	const [body] = responseBodies(fixtureMatching(apis, name));
	if (!body) throw new Error(`fixture matching ${name} has no response`);
	return body;
}

/** The raw bytes of a fixture file. */
export function fixtureBytes(fixture: FixtureInfo | string): Uint8Array {
	const file = typeof fixture === "string" ? fixture : fixture.file;
	return new Uint8Array(readFileSync(resolve(FIXTURES_ROOT, file)));
}

/** How a folder's JSONL chunks are turned back into SSE bytes (fixtures README, "Turning a JSONL ..."). */
export interface Framing {
	/** Emit `event: <type>` lines (named events). */
	named: boolean;
	/** Line ending. */
	eol: "\n" | "\r\n";
	/** Append `data: [DONE]` after the last chunk of each response. */
	doneSentinel: boolean;
	/** A chunk whose `type` (or `event_type`) is this value starts a new HTTP response. */
	splitAtType?: string;
}

/** The framing for a fixture folder. */
export function framingFor(api: string): Framing {
	if (api.startsWith("anthropic-messages"))
		return { named: true, eol: "\n", doneSentinel: false, splitAtType: "message_start" };
	if (api.startsWith("openai-responses"))
		return { named: true, eol: "\n", doneSentinel: false, splitAtType: "response.created" };
	if (api === "openai-chat" || api.startsWith("openai-compatible-"))
		return { named: false, eol: "\n", doneSentinel: true };
	if (api === "google-gemini" || api === "google-vertex")
		return { named: false, eol: "\r\n", doneSentinel: false };
	if (api === "cohere-v2-chat") return { named: true, eol: "\n", doneSentinel: false };
	return { named: false, eol: "\n", doneSentinel: false };
}

/** The JSON lines of a JSONL chunk fixture (empty lines dropped). */
export function chunkLines(fixture: FixtureInfo): string[] {
	return new TextDecoder()
		.decode(fixtureBytes(fixture))
		.split("\n")
		.map((line) => line.replace(/\r$/, ""))
		.filter((line) => line.trim() !== "");
}

function chunkType(line: string): string | undefined {
	const value = JSON.parse(line) as { type?: unknown; event_type?: unknown };
	if (typeof value.type === "string") return value.type;
	if (typeof value.event_type === "string") return value.event_type;
	return undefined;
}

/** Re-frame JSON lines as the SSE body of one response. */
export function frameChunks(lines: readonly string[], framing: Framing): string {
	const { eol } = framing;
	let out = "";
	for (const line of lines) {
		const type = framing.named ? chunkType(line) : undefined;
		if (type !== undefined) out += `event: ${type}${eol}`;
		out += `data: ${line}${eol}${eol}`;
	}
	if (framing.doneSentinel) out += `data: [DONE]${eol}${eol}`;
	return out;
}

/**
 * A hand-written (SYNTHETIC) SSE body: `events` framed exactly as the recordings of the `api` folder are
 * (named events or not, LF or CRLF, `[DONE]` or not), so synthetic and recorded streams meet the decoder alike.
 */
export function frameEvents(api: string, events: readonly object[]): string {
	return frameChunks(
		events.map((event) => JSON.stringify(event)),
		framingFor(api),
	);
}

/** Group JSON lines into responses, starting a new one at each `splitAtType` chunk. */
export function splitResponses(lines: readonly string[], framing: Framing): string[][] {
	if (!framing.splitAtType) return [lines.slice()];
	const groups: string[][] = [];
	for (const line of lines) {
		if (groups.length === 0 || chunkType(line) === framing.splitAtType) groups.push([]);
		groups[groups.length - 1]?.push(line);
	}
	return groups;
}

/** The HTTP response bodies a fixture stands for: raw files as is, JSONL re-framed and split. */
export function responseBodies(fixture: FixtureInfo): Uint8Array[] {
	if (fixture.format === "raw-sse") return [fixtureBytes(fixture)];
	const framing = framingFor(fixture.api);
	const encoder = new TextEncoder();
	return splitResponses(chunkLines(fixture), framing).map((group) =>
		encoder.encode(frameChunks(group, framing)),
	);
}

/** One SSE event of a recording. */
export interface RecordedEvent {
	event: string | undefined;
	data: string;
}

/** Decode a whole body into its SSE events (independent of the decoder under test). */
export function recordedEvents(body: Uint8Array): RecordedEvent[] {
	const events: RecordedEvent[] = [];
	const parser = createParser({
		onEvent: (message) => events.push({ event: message.event, data: message.data }),
	});
	// The trailing blank lines end an event the server left unterminated (as a client at EOF would).
	parser.feed(`${new TextDecoder().decode(body)}\n\n`);
	return events;
}

/** Deterministic PRNG (mulberry32) for reproducible re-splits. */
export function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/**
 * Split bytes at random offsets (seeded), always including a cut inside the first multi-byte UTF-8 character
 * and one between the first `\r` and `\n`, when the body has them.
 */
export function splitBytes(bytes: Uint8Array, seed: number, pieces = 24): Uint8Array[] {
	if (bytes.length < 2) return [bytes];
	const random = seededRandom(seed);
	const cuts = new Set<number>();
	const multiByte = bytes.findIndex((byte) => byte >= 0xc0);
	if (multiByte >= 0 && multiByte + 1 < bytes.length) cuts.add(multiByte + 1);
	for (let i = 0; i + 1 < bytes.length; i++) {
		if (bytes[i] === 0x0d && bytes[i + 1] === 0x0a) {
			cuts.add(i + 1);
			break;
		}
	}
	while (cuts.size < Math.min(pieces - 1, bytes.length - 1))
		cuts.add(1 + Math.floor(random() * (bytes.length - 1)));
	const sorted = [...cuts].sort((a, b) => a - b);
	const out: Uint8Array[] = [];
	let start = 0;
	for (const cut of sorted) {
		out.push(bytes.subarray(start, cut));
		start = cut;
	}
	out.push(bytes.subarray(start));
	return out;
}
