// `npm run bench`: benchmarks arrive with the codecs (see the budgets in the design notes).
console.log("no benchmarks yet");
