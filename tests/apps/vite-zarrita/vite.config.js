// The whole migration from zarrita: one alias.
export default { resolve: { alias: { zarrita: "zom/zarrita" } } };
