// The whole migration from zarrita: one alias (`$`: the bare specifier only).
export default { resolve: { alias: { zarrita$: "zom/zarrita" } } };
