/**
 * W6 prompt stability (issue 10): one 200-request tool-calling conversation against a loopback server, with a
 * context transform that prunes old tool results every 50 requests, on two wires — Anthropic Messages (its
 * `cache_control` breakpoints are in the body) and OpenAI Chat Completions (no markers: the wire llama.cpp,
 * vLLM and OpenAI's prefix caches match by raw prefix). For each request from the second on: the share of
 * the previous request's wire body (the bytes the server received) that this request repeats as its prefix —
 * what a raw-prefix cache can reuse. Rows per wire: capstan without and with `AppendOnlyContextManager` (rule
 * X2), pi-agent-core with the same transform. Target (issue 10): ≥ 99 % on every non-pruning request with the
 * manager on, judged on the raw bytes of both wires (Anthropic also shows the share with the markers set
 * aside, which is what Anthropic's own cache keys on).
 *
 * Run: `npx tsx bench/w6-prompt.ts [--quick]` from the repo root (`--quick` changes nothing here: the run
 * is deterministic and takes seconds). Each library runs in a child process (`--library <name>`).
 */
import { fileURLToPath } from "node:url";
import {
	type Conversation,
	PRUNE_EVERY,
	TURNS,
	type TurnShare,
	WIRE_NAMES,
	WIRES,
	type Wire,
} from "./w56/conversation.js";
import { argValue, emit, type Row, runChild, type WorkloadResult } from "./w56/report.js";

/** Child processes: one per library (capstan's two setups share one, run one after the other). */
const LIBRARIES = ["capstan", "pi-agent-core"] as const;
type Library = (typeof LIBRARIES)[number];
/** The table's rows, one per setup. */
type Setup = "capstan" | "capstan-append-only" | "pi-agent-core";

/** What a child reports. */
interface ChildResult extends Conversation {
	library: Setup;
}

async function child(library: Library): Promise<ChildResult[]> {
	const results: ChildResult[] = [];
	// Imported on demand: a child loads only its own library.
	if (library === "pi-agent-core") {
		const { piConversation } = await import("./w56/w6-pi.js");
		for (const wire of WIRES) results.push({ library, ...(await piConversation(wire)) });
		return results;
	}
	const { capstanConversation } = await import("./w56/w6-capstan.js");
	for (const wire of WIRES) {
		results.push({ library: "capstan", ...(await capstanConversation(false, wire)) });
		results.push({ library: "capstan-append-only", ...(await capstanConversation(true, wire)) });
	}
	return results;
}

const pct = (share: number) => Math.round(share * 100_000) / 1000;
const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;

type ShareKey = "ofPrevious" | "ofPreviousUnmarked";

/** Mean and minimum over the non-pruning requests of one share. */
function steadyRows(library: string, steady: readonly TurnShare[], key: ShareKey, label: string) {
	const worst = steady.reduce((a, b) => (b[key] < a[key] ? b : a));
	return {
		min: worst[key],
		rows: [
			{
				library,
				case: `mean, ${label}`,
				value: pct(mean(steady.map((s) => s[key]))),
				note: `${steady.length} requests`,
			},
			{
				library,
				case: `min, ${label}`,
				value: pct(worst[key]),
				note: `request ${worst.turn} (${worst.bytes} bytes)`,
			},
		],
	};
}

function rowsOf(result: ChildResult): { rows: Row[]; min: number } {
	const pruning = new Set(result.pruningTurns);
	const steady = result.shares.filter((share) => !pruning.has(share.turn));
	const pruned = result.shares.filter((share) => pruning.has(share.turn));
	const library =
		result.library === "capstan-append-only" ? "capstan + AppendOnlyContextManager" : result.library;
	const on = WIRE_NAMES[result.wire];
	const raw = steadyRows(library, steady, "ofPrevious", `${on}: non-pruning requests, wire body`);
	// Only the Anthropic wire has markers to set aside; on Chat Completions the two figures are the same.
	const unmarked =
		result.wire === "anthropic-messages"
			? steadyRows(
					library,
					steady,
					"ofPreviousUnmarked",
					`${on}: non-pruning requests, cache_control markers removed`,
				)
			: undefined;
	return {
		min: raw.min,
		rows: [
			...raw.rows,
			...(unmarked?.rows ?? []),
			{
				library,
				case: `mean, ${on}: pruning requests, wire body`,
				value: pct(mean(pruned.map((s) => s.ofPrevious))),
				note: `requests ${result.pruningTurns.join(", ")}`,
			},
		],
	};
}

/** The target on one wire: the manager's raw-byte minimum over the non-pruning requests. */
function targetOn(wire: Wire, setups: readonly ChildResult[], summaries: readonly { min: number }[]) {
	const at = setups.findIndex((setup) => setup.library === "capstan-append-only" && setup.wire === wire);
	const summary = summaries[at];
	if (!summary) throw new Error(`the capstan child reported no run with the manager on ${wire}`);
	return {
		text: `W6 ≥ 99 % on every non-pruning request with the manager on, ${WIRE_NAMES[wire]} (raw bytes, as sent)`,
		pass: summary.min >= 0.99,
	};
}

async function parent(): Promise<WorkloadResult> {
	const script = fileURLToPath(import.meta.url);
	// Nothing here is timed (the figures are byte counts), so the children run at once.
	const results = (await Promise.all(
		LIBRARIES.map((library) => runChild(script, library)),
	)) as ChildResult[][];
	const setups = results.flat();
	const summaries = setups.map(rowsOf);
	return {
		workload: "W6",
		title: `Prompt stability: share of the previous request's body repeated as the next one's prefix, Anthropic Messages and Chat Completions (${TURNS} requests, old tool results pruned every ${PRUNE_EVERY})`,
		unit: "%",
		higherIsBetter: true,
		rows: summaries.flatMap((summary) => summary.rows),
		targets: WIRES.map((wire) => targetOn(wire, setups, summaries)),
	};
}

const library = argValue("library");
if (library !== undefined) {
	if (!(LIBRARIES as readonly string[]).includes(library)) throw new Error(`unknown --library ${library}`);
	emit(await child(library as Library));
} else emit(await parent());
