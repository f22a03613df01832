// The CGL extension: a language client that starts `cgl lsp` over stdio, and a document
// formatter that pipes the text through `cgl fmt -`. Highlighting is the TextMate grammar
// (syntaxes/cgl.tmLanguage.json, a copy of editors/cgl.tmLanguage.json).
"use strict";

const { execFile } = require("child_process");
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function settings() {
  const config = vscode.workspace.getConfiguration("cgl");
  return {
    command: config.get("command", "cgl"),
    server: config.get("server.enable", true),
    format: config.get("format.enable", true),
  };
}

function startServer(context, command) {
  const serverOptions = {
    run: { command, args: ["lsp"], transport: TransportKind.stdio },
    debug: { command, args: ["lsp"], transport: TransportKind.stdio },
  };
  const clientOptions = {
    // rulesets, and the YAML beside them: card data and scenario files get their diagnostics
    // and hover too (the server answers nothing for other YAML)
    documentSelector: [
      { scheme: "file", language: "cgl" },
      { scheme: "untitled", language: "cgl" },
      { scheme: "file", language: "yaml" },
    ],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.{cgl,yaml}") },
  };
  client = new LanguageClient("cgl", "CGL language server", serverOptions, clientOptions);
  client.start();
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

// `cgl fmt -` reads the document on stdin and writes it formatted on stdout; exit 2 with
// a located error on stderr when the text does not parse (then nothing changes).
function formatter(command) {
  return {
    provideDocumentFormattingEdits(document) {
      return new Promise((resolve) => {
        const cwd = vscode.workspace.getWorkspaceFolder(document.uri)?.uri.fsPath;
        const child = execFile(command, ["fmt", "-"], { cwd, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
          if (err) {
            vscode.window.setStatusBarMessage(`cgl fmt: ${(stderr || err.message).split("\n")[0]}`, 5000);
            resolve([]);
            return;
          }
          const all = new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length));
          resolve(stdout === document.getText() ? [] : [vscode.TextEdit.replace(all, stdout)]);
        });
        child.stdin.end(document.getText());
      });
    },
  };
}

function activate(context) {
  const { command, server, format } = settings();
  if (server) {
    startServer(context, command);
  }
  if (format) {
    context.subscriptions.push(
      vscode.languages.registerDocumentFormattingEditProvider({ language: "cgl" }, formatter(command)));
  }
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
