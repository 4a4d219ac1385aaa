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

	/** The kept text, with a note where bytes were dropped. */
	text(): string {
		const head = Buffer.concat(this.head).toString("utf8");
		const tail = Buffer.concat(this.tail).toString("utf8");
		if (this.omitted === 0) return head + tail;
		return `${head}\n[… ${this.omitted} bytes of output omitted …]\n${tail}`;
	}
}
