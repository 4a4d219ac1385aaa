/**
 * W5's input: for each wire API, one recorded stream grown to the target size by repeating its longest run
 * of text-delta events between the recording's own start and end events — still a valid stream of that API
 * (the same deltas of the same content block, then the real closing events), framed as the recordings are.
 */
import {
	allFixtures,
	framingFor,
	recordedEvents,
	responseBodies,
} from "../../test/providers/support/fixtures.js";

/** The four wire APIs of W5. */
export const APIS = ["anthropic", "openai-chat", "openai-responses", "google-gemini"] as const;
export type WireApi = (typeof APIS)[number];

type Json = Record<string, unknown>;
const obj = (value: unknown): Json | undefined =>
	value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;

/**
 * The reply text an event carries (its parsed `data`, or the vendor SDK's object for it), `""` for none:
 * what every decoder must surface as text.
 */
export function eventText(api: WireApi, data: unknown): string {
	const event = obj(data);
	if (api === "openai-chat") {
		const choice = obj(Array.isArray(event?.choices) ? event.choices[0] : undefined);
		const content = obj(choice?.delta)?.content;
		return typeof content === "string" ? content : "";
	}
	if (api === "google-gemini") {
		const candidate = obj(Array.isArray(event?.candidates) ? event.candidates[0] : undefined);
		const parts = obj(candidate?.content)?.parts;
		let text = "";
		for (const part of Array.isArray(parts) ? parts : []) {
			const p = obj(part);
			if (p && p.thought !== true && typeof p.text === "string") text += p.text;
		}
		return text;
	}
	return deltaText(api, data) ?? "";
}

/** The text of a pure text-delta event (the kind that is repeated), or `undefined` for any other event. */
export function deltaText(api: WireApi, data: unknown): string | undefined {
	const event = obj(data);
	if (!event) return undefined;
	if (api === "anthropic") {
		const delta = obj(event.delta);
		return event.type === "content_block_delta" &&
			delta?.type === "text_delta" &&
			typeof delta.text === "string"
			? delta.text
			: undefined;
	}
	if (api === "openai-responses")
		return event.type === "response.output_text.delta" && typeof event.delta === "string"
			? event.delta
			: undefined;
	if (api === "openai-chat") {
		const choices = Array.isArray(event.choices) ? event.choices : [];
		const choice = obj(choices[0]);
		const delta = obj(choice?.delta);
		const onlyContent = delta && Object.keys(delta).every((key) => key === "content" || key === "refusal");
		return choices.length === 1 && !choice?.finish_reason && onlyContent && typeof delta.content === "string"
			? delta.content
			: undefined;
	}
	const candidates = Array.isArray(event.candidates) ? event.candidates : [];
	const candidate = obj(candidates[0]);
	const parts = obj(candidate?.content)?.parts;
	if (candidates.length !== 1 || candidate?.finishReason || !Array.isArray(parts) || parts.length === 0)
		return undefined;
	let text = "";
	for (const part of parts) {
		const p = obj(part);
		if (!p || Object.keys(p).some((key) => key !== "text") || typeof p.text !== "string") return undefined;
		text += p.text;
	}
	return text;
}

/**
 * The recording each API is grown from: plain text replies (the common case), chosen so that every library
 * under test decodes them without error.
 */
export const SOURCES: Record<WireApi, string> = {
	anthropic: "anthropic-messages/anthropic-text.chunks.txt",
	"openai-chat": "openai-chat/openai-text.chunks.txt",
	"openai-responses": "openai-responses/openai-compaction.1.chunks.txt",
	"google-gemini": "google-gemini/streaming-success-citations.txt",
};

/** A grown stream and what any correct decoder must produce from it. */
export interface Corpus {
	api: WireApi;
	/** The recording it was grown from. */
	source: string;
	body: Uint8Array;
	/** Characters of text (UTF-16 units) in all its text deltas together. */
	textLength: number;
	/** How many times the delta run was repeated. */
	repeats: number;
}

interface Candidate {
	source: string;
	events: { event: string | undefined; data: string }[];
	start: number;
	end: number;
	runBytes: number;
}

function longestRun(api: WireApi, source: string, body: Uint8Array): Candidate | undefined {
	const events = recordedEvents(body);
	let best: Candidate | undefined;
	let start = -1;
	for (let i = 0; i <= events.length; i++) {
		const event = events[i];
		const isDelta =
			event !== undefined && event.data !== "[DONE]" && deltaText(api, JSON.parse(event.data)) !== undefined;
		if (isDelta && start < 0) start = i;
		if (!isDelta && start >= 0) {
			const runBytes = events.slice(start, i).reduce((sum, e) => sum + e.data.length, 0);
			if (!best || runBytes > best.runBytes) best = { source, events, start, end: i, runBytes };
			start = -1;
		}
	}
	return best;
}

/** The stream of `api` grown to at least `minBytes` by repeating its recording's longest text-delta run. */
export function buildCorpus(api: WireApi, minBytes: number): Corpus {
	const fixture = allFixtures().find((candidate) => candidate.file === SOURCES[api]);
	const [first] = fixture ? responseBodies(fixture) : [];
	const best = first && longestRun(api, SOURCES[api], first);
	if (!fixture || !best) throw new Error(`${SOURCES[api]}: no such recording, or no text-delta run in it`);
	const folder = fixture.api;
	const { eol, named } = framingFor(folder);
	const frame = (e: { event: string | undefined; data: string }) =>
		`${named && e.event !== undefined ? `event: ${e.event}${eol}` : ""}data: ${e.data}${eol}${eol}`;
	const head = best.events.slice(0, best.start).map(frame).join("");
	const run = best.events.slice(best.start, best.end).map(frame).join("");
	const tail = best.events.slice(best.end).map(frame).join("");
	const repeats = Math.max(1, Math.ceil((minBytes - head.length - tail.length) / run.length));
	const text = (events: Candidate["events"]) =>
		events.reduce((sum, e) => sum + (e.data === "[DONE]" ? 0 : eventText(api, JSON.parse(e.data)).length), 0);
	const textLength =
		text(best.events.slice(0, best.start)) +
		repeats * text(best.events.slice(best.start, best.end)) +
		text(best.events.slice(best.end));
	const body = new TextEncoder().encode(head + run.repeat(repeats) + tail);
	return { api, source: best.source, body, textLength, repeats };
}
