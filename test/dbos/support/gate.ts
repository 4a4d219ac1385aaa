/** A gate a tool waits at: `reached` once it is inside, `open()` lets it return. */
export interface Gate {
	reached: Promise<void>;
	inside(): void;
	opened: Promise<void>;
	open(): void;
}

/** A new gate, closed and not reached. */
export function createGate(): Gate {
	let inside!: () => void;
	let open!: () => void;
	const reached = new Promise<void>((resolve) => (inside = resolve));
	const opened = new Promise<void>((resolve) => (open = resolve));
	return { reached, inside, opened, open };
}
