/**
 * Command output kept within a byte budget: the first half and the most recent half, so both the command's
 * start and its final errors survive a flood in between.
 */
export class HeadTailBuffer {
	private readonly head: Buffer[] = [];
	private headBytes = 0;
	private tail: Buffer[] = [];
	private tailBytes = 0;
	/** Every byte seen, kept or not. */
	total = 0;

	constructor(private readonly maxBytes: number) {}

	push(chunk: Buffer): void {
		this.total += chunk.length;
		const headRoom = Math.ceil(this.maxBytes / 2) - this.headBytes;
		if (headRoom > 0) {
			const taken = chunk.subarray(0, headRoom);
			this.head.push(taken);
			this.headBytes += taken.length;
			chunk = chunk.subarray(taken.length);
			if (chunk.length === 0) return;
		}
		this.tail.push(chunk);
		this.tailBytes += chunk.length;
		const tailMax = Math.floor(this.maxBytes / 2);
		while (this.tailBytes > tailMax) {
			const first = this.tail[0]!;
			const excess = this.tailBytes - tailMax;
			if (first.length <= excess) {
				this.tail.shift();
				this.tailBytes -= first.length;
			} else {
				this.tail[0] = first.subarray(excess);
				this.tailBytes -= excess;
			}
		}
	}

	/** Bytes dropped from the middle. */
	get omitted(): number {
		return this.total - this.headBytes - this.tailBytes;
	}

	/**
	 * The kept text, with a note where bytes were dropped. Head and tail split the output at a byte count, which
	 * may fall inside a character: decoded apart, its two halves would each show as U+FFFD.
	 */
	text(): string {
		const head = Buffer.concat(this.head);
		const tail = Buffer.concat(this.tail);
		if (this.omitted === 0) return Buffer.concat([head, tail]).toString("utf8");
		// Show whole characters only; the bytes of a character cut by the gap count as omitted.
		const headEnd = wholeCharactersEnd(head);
		const tailStart = continuationBytesAtStart(tail);
		const omitted = this.omitted + (head.length - headEnd) + tailStart;
		return (
			`${head.subarray(0, headEnd).toString("utf8")}\n[… ${omitted} bytes of output omitted …]\n` +
			tail.subarray(tailStart).toString("utf8")
		);
	}
}

/** Where the bytes stop being whole UTF-8 characters: before a last sequence that is cut short. */
function wholeCharactersEnd(bytes: Buffer): number {
	for (let at = bytes.length - 1; at >= Math.max(0, bytes.length - 4); at--) {
		const byte = bytes[at]!;
		if ((byte & 0xc0) === 0x80) continue;
		if (byte < 0xc0) return bytes.length;
		const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
		return bytes.length - at >= length ? bytes.length : at;
	}
	return bytes.length;
}

/** The continuation bytes (at most 3) that open `bytes`: the end of a character whose start was dropped. */
function continuationBytesAtStart(bytes: Buffer): number {
	let count = 0;
	while (count < 3 && count < bytes.length && (bytes[count]! & 0xc0) === 0x80) count++;
	return count;
}
