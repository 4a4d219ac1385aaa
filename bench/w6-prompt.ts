/**
 * W6 prompt stability (issue 10): one 200-request tool-calling conversation against a loopback Anthropic
 * Messages server, with a context transform that prunes old tool results every 50 requests. For each request
 * from the second on: the share of the previous request's wire body (the bytes the server received) that
 * this request repeats as its prefix — what a provider's prefix cache can reuse. Rows: capstan without and
 * with `AppendOnlyContextManager` (rule X2), pi-agent-core with the same transform. Target (issue 10): ≥ 99 %
 * on every non-pruning request with the manager on.
 *
 * Run: `npx tsx bench/w6-prompt.ts [--quick]` from the repo root (`--quick` changes nothing here: the run
 * is deterministic and takes seconds). Each library runs in a child process (`--library <name>`).
 */
import { fileURLToPath } from "node:url";
import { type Conversation, PRUNE_EVERY, TURNS, type TurnShare } from "./w56/conversation.js";
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
	// Imported on demand: a child loads only its own library.
	if (library === "pi-agent-core")
		return [{ library, ...(await (await import("./w56/w6-pi.js")).piConversation()) }];
	const { capstanConversation } = await import("./w56/w6-capstan.js");
	return [
		{ library: "capstan", ...(await capstanConversation(false)) },
		{ library: "capstan-append-only", ...(await capstanConversation(true)) },
	];
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

function rowsOf(result: ChildResult): { rows: Row[]; min: Record<ShareKey, number> } {
	const pruning = new Set(result.pruningTurns);
	const steady = result.shares.filter((share) => !pruning.has(share.turn));
	const pruned = result.shares.filter((share) => pruning.has(share.turn));
	const library =
		result.library === "capstan-append-only" ? "capstan + AppendOnlyContextManager" : result.library;
	const wire = steadyRows(library, steady, "ofPrevious", "non-pruning requests, wire body");
	const unmarked = steadyRows(
		library,
		steady,
		"ofPreviousUnmarked",
		"non-pruning requests, cache_control markers removed",
	);
	return {
		min: { ofPrevious: wire.min, ofPreviousUnmarked: unmarked.min },
		rows: [
			...wire.rows,
			...unmarked.rows,
			{
				library,
				case: "mean, pruning requests, wire body",
				value: pct(mean(pruned.map((s) => s.ofPrevious))),
				note: `requests ${result.pruningTurns.join(", ")}`,
			},
		],
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
	const manager = summaries[setups.findIndex((setup) => setup.library === "capstan-append-only")];
	if (!manager) throw new Error("the capstan child reported no run with the manager");
	return {
		workload: "W6",
		title: `Prompt stability: share of the previous request's Anthropic request body repeated as the next one's prefix (${TURNS} requests, old tool results pruned every ${PRUNE_EVERY})`,
		unit: "%",
		higherIsBetter: true,
		rows: summaries.flatMap((summary) => summary.rows),
		targets: [
			{
				text: "W6 ≥ 99 % on every non-pruning request with the manager on (wire body as sent)",
				pass: manager.min.ofPrevious >= 0.99,
			},
			{
				text: "W6 ≥ 99 % on every non-pruning request with the manager on (cache_control markers removed)",
				pass: manager.min.ofPreviousUnmarked >= 0.99,
			},
		],
	};
}

const library = argValue("library");
if (library !== undefined) {
	if (!(LIBRARIES as readonly string[]).includes(library)) throw new Error(`unknown --library ${library}`);
	emit(await child(library as Library));
} else emit(await parent());
