// Prism must not scan and rewrite the page on its own (React owns the DOM): set before prismjs loads.
const scope = globalThis as { Prism?: { manual?: boolean } };
scope.Prism = { ...scope.Prism, manual: true };
export {};
