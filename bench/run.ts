/** `npm run bench`: prints every benchmark with its floor and its target. */
import { w1, w2, w3, w4 } from "./core.js";
import { allDecodeThroughputs } from "./decode.js";
import { providerW3 } from "./provider-w3.js";
import { soak } from "./soak.js";
import { collectorDirectCost, telemetryCost } from "./telemetry.js";

const fmt = (n: number, digits = 3) => n.toFixed(digits);

async function main() {
	console.log(`capstan bench — node ${process.version}, ${new Date().toISOString()}`);

	const r1 = await w1();
	console.log(
		`W1 text deltas: ${fmt(r1.nsPerDelta, 0)} ns/delta (floor ${fmt(r1.floorNsPerDelta, 0)} ns) = ${fmt(r1.ratio, 2)}× floor  [target ≤ 2.5×]`,
	);

	const r2 = await w2();
	console.log(
		`W2 1,000 tool turns: turns 2–21 ${fmt(r2.msPerTurnFirst, 4)} ms/turn, turns 981–1,000 ${fmt(r2.msPerTurnLast, 4)} ms/turn, mean ${fmt(r2.msPerTurnTotal, 4)} (floor ${fmt(r2.floorMsPerTurn, 4)}) [target ≤ 0.05 ms/turn, flat]`,
	);

	const r3 = await w3();
	for (const row of r3.rows) {
		console.log(
			`W3 ${String(row.bytes / 1024).padStart(5)} KB args: ${fmt(row.ms, 2)} ms (floor ${fmt(row.floorMs, 2)} ms) = ${fmt(row.ms / row.floorMs, 2)}× floor`,
		);
	}
	console.log(`W3 growth exponent ${fmt(r3.exponent, 3)} (floor ${fmt(r3.floorExponent, 3)}) [target ≤ 1.1]`);
	const r3a = await w3(undefined, undefined, "array");
	console.log(
		`W3 (one array of small objects) ${r3a.rows.map((r) => `${r.bytes / 1024} KB ${fmt(r.ms, 1)} ms`).join(", ")}; exponent ${fmt(r3a.exponent, 3)} (floor ${fmt(r3a.floorExponent, 3)}) [target ≤ 1.1]`,
	);

	const r4 = await w4();
	console.log(
		`W4 8 tools × 100 ms: batch ${fmt(r4.batchMs, 2)} ms (floor ${fmt(r4.floorMs, 2)} ms) = floor + ${fmt(r4.batchMs - r4.floorMs, 2)} ms [target ≤ floor + 1 ms]`,
	);

	const tel = await telemetryCost();
	const direct = await collectorDirectCost();
	const signed = (n: number) => `${n >= 0 ? "+" : ""}${fmt(n, 2)}`;
	console.log(
		`X3 telemetry, W2-like 1,000 tool turns: off ${fmt(tel.off, 2)} µs/turn; on, end to end: collector ${signed(tel.collectorCost)}, collector + OTel sink (no-op tracer) ${signed(tel.otelNoopCost)}, collector + OTel SDK spans in memory ${signed(tel.otelCost)} µs/turn; collector alone (events replayed) ${fmt(direct.collectorUsPerTurn, 2)} µs/turn, with the OTel sink (no-op tracer) ${fmt(direct.withNoopSinkUsPerTurn, 2)} µs/turn`,
	);

	const pw3 = await providerW3();
	console.log(
		`W3 through the Anthropic provider (SSE → decoder → builder): ${pw3.rows.map((r) => `${r.bytes / 1024} KB ${fmt(r.ms, 1)} ms`).join(", ")}; exponent ${fmt(pw3.exponent, 3)} [target ≤ 1.1]`,
	);
	await allDecodeThroughputs(console.log);

	const s = await soak();
	console.log(
		`Soak ${s.turns} Agent turns: ${fmt(s.msPerTurn, 3)} ms/turn; heap ${fmt(s.heapStartMb, 1)} → ${fmt(s.heapEndMb, 1)} MB, slope ${fmt(s.heapSlopeBytesPerTurn, 1)} B/turn${s.gcExposed ? "" : " (no --expose-gc: noisy)"}; left behind ${JSON.stringify(s.leftBehind)} [target: flat, nothing left]`,
	);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
