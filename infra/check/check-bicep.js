'use strict';
// Parses every .bicep file given (or found under the given directories) with the tree-sitter Bicep
// grammar and reports each ERROR or MISSING node, and each use of syntax newer than classic Bicep, as
// file:line:column. Exit status: 0 when every file
// parses cleanly, 1 on syntax errors, 2 on usage errors (no files found, unreadable file).
const fs = require('fs');
const path = require('path');
const Parser = require('tree-sitter');
const Bicep = require('tree-sitter-bicep');

function collect(target, out) {
  const stat = fs.statSync(target);
  if (stat.isDirectory()) {
    for (const entry of fs.readdirSync(target).sort()) {
      if (entry === 'node_modules' || entry.startsWith('.')) continue;
      collect(path.join(target, entry), out);
    }
  } else if (target.endsWith('.bicep')) {
    out.push(target);
  }
}

function problems(node, out) {
  if (node.type === 'ERROR' || node.isMissing) {
    out.push(node);
    // Children of an ERROR node are usually noise; the outermost error is the useful one.
    if (node.type === 'ERROR') return;
  }
  if (!node.hasError && !node.isMissing) return;
  for (const child of node.children) problems(child, out);
}

// Syntax newer than classic Bicep (user-defined types and functions, imports, .bicepparam, nullable
// types, safe-dereference and coalescing operators). The grammar accepts it, but the project keeps to
// classic syntax (see docs/deploy.md), so it is reported like a syntax error.
const NEWER_NODES = {
  import_functionality: 'import',
  nullable_type: 'nullable type',
  type_declaration: 'user-defined type',
  user_defined_function: 'user-defined function',
  using_statement: 'using (.bicepparam)',
  assert_statement: 'assert',
};
const NEWER_TOKENS = { '.?': 'safe dereference .?', '??': 'coalesce ??' };

function newerSyntax(node, out) {
  if (NEWER_NODES[node.type]) {
    out.push([node, NEWER_NODES[node.type]]);
  } else if (!node.isNamed && NEWER_TOKENS[node.type]) {
    out.push([node, NEWER_TOKENS[node.type]]);
  } else if (!node.isNamed && node.type === '!' && node.previousSibling !== null) {
    // A prefix '!' is logical not; one after an operand is the non-null assertion.
    out.push([node, 'non-null assertion !']);
  }
  for (const child of node.children) newerSyntax(child, out);
}

function main(argv) {
  const targets = argv.length > 0 ? argv : ['.'];
  const files = [];
  for (const t of targets) {
    try {
      collect(t, files);
    } catch (e) {
      console.error(`cannot read ${t}: ${e.message}`);
      return 2;
    }
  }
  if (files.length === 0) {
    console.error(`no .bicep files under ${targets.join(' ')}`);
    return 2;
  }
  const parser = new Parser();
  parser.setLanguage(Bicep);
  // Guard against a parser that accepts everything (a broken native build, a grammar mix-up).
  const good = parser.parse("param n string\nresource r 'A.B/c@2024-01-01' = {\n  name: n\n}\n");
  const bad = parser.parse("resource r 'A.B/c@2024-01-01' = {\n  name: [\n}\n");
  if (good.rootNode.hasError || !bad.rootNode.hasError) {
    console.error('tree-sitter-bicep self-test failed: the parser does not tell good Bicep from bad');
    return 2;
  }
  let failed = 0;
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    // The Node binding reads long inputs in chunks; a callback avoids its default 32 KiB buffer limit.
    const tree = parser.parse((index) => text.slice(index, index + 4096));
    const found = [];
    problems(tree.rootNode, found);
    const newer = [];
    newerSyntax(tree.rootNode, newer);
    if (found.length === 0 && newer.length === 0) {
      console.log(`ok    ${file}`);
      continue;
    }
    failed++;
    for (const node of found) {
      const line = node.startPosition.row + 1;
      const col = node.startPosition.column + 1;
      const what = node.isMissing ? `MISSING ${JSON.stringify(node.type)}` : 'ERROR';
      const snippet = (text.split('\n')[node.startPosition.row] || '<end of file>').trim().slice(0, 80);
      console.log(`${file}:${line}:${col}: ${what}: ${snippet}`);
    }
    for (const [node, what] of newer) {
      const line = node.startPosition.row + 1;
      const col = node.startPosition.column + 1;
      console.log(`${file}:${line}:${col}: NEWER SYNTAX (${what}); use classic Bicep`);
    }
  }
  console.log(`${files.length} file(s) checked, ${failed} with problems`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
