const name = process.argv[2]!;
const mod = (await import(`/work/main/tests/bench/${name}.bench.ts`)) as { run: (root: string, ...a: number[]) => Promise<void> };
await mod.run('/work/main', ...process.argv.slice(3).map(Number));
