// Tokenises files with a TextMate grammar the way VS Code does (vscode-textmate on the
// Oniguruma regex engine, vscode-oniguruma), for tests/test_textmate.py.
//   node test/tokenize.js GRAMMAR.json FILE...
// prints, as JSON, for each file, for each line, its tokens: [start, end, [scopes...]]
// (UTF-16 offsets into the line, scopes outermost first).
"use strict";

const fs = require("fs");
const path = require("path");
const oniguruma = require("vscode-oniguruma");
const vsctm = require("vscode-textmate");

async function main() {
  const [grammarPath, ...files] = process.argv.slice(2);
  const wasm = fs.readFileSync(path.join(path.dirname(require.resolve("vscode-oniguruma")), "onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async () => vsctm.parseRawGrammar(fs.readFileSync(grammarPath, "utf8"), grammarPath),
  });
  const source = JSON.parse(fs.readFileSync(grammarPath, "utf8")).scopeName;
  const grammar = await registry.loadGrammar(source);
  const out = [];
  for (const file of files) {
    let rule = vsctm.INITIAL;
    const lines = [];
    for (const line of fs.readFileSync(file, "utf8").split("\n")) {
      const r = grammar.tokenizeLine(line, rule);
      lines.push(r.tokens.map((t) => [t.startIndex, Math.min(t.endIndex, line.length), t.scopes]));
      rule = r.ruleStack;
    }
    out.push(lines);
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => { console.error(e); process.exit(1); });
