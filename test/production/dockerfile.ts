/** A small Dockerfile reader for the image test: stages and their instructions, continuations joined. */

export interface Instruction {
  op: string;
  /** Raw argument text after the instruction keyword. */
  args: string;
  /** COPY/ADD flags such as --from=build, --chown=node:node. */
  flags: Record<string, string>;
  /** For JSON-form (exec form) arguments, the parsed array. */
  exec?: string[];
}

export interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  args: Record<string, string>;
  stages: Stage[];
}

export function parseDockerfile(text: string): Dockerfile {
  const logical: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (!current && (line.trim().startsWith('#') || line.trim() === '')) continue;
    if (line.trim().startsWith('#')) continue; // comment inside a continuation
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    current += line;
    logical.push(current.trim());
    current = '';
  }
  if (current.trim()) logical.push(current.trim());

  const df: Dockerfile = { args: {}, stages: [] };
  for (const line of logical) {
    const m = /^([A-Za-z]+)\s+(.*)$/s.exec(line);
    if (!m) throw new Error(`unparsable Dockerfile line: ${line}`);
    const op = m[1]!.toUpperCase();
    let args = m[2]!.trim();
    const flags: Record<string, string> = {};
    if (op === 'COPY' || op === 'ADD') {
      while (args.startsWith('--')) {
        const f = /^--([a-z-]+)=(\S+)\s+/.exec(args);
        if (!f) break;
        flags[f[1]!] = f[2]!;
        args = args.slice(f[0].length);
      }
    }
    if (op === 'ARG' && df.stages.length === 0) {
      const [k, v = ''] = args.split('=');
      df.args[k!] = v;
      continue;
    }
    if (op === 'FROM') {
      const f = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!f) throw new Error(`unparsable FROM: ${args}`);
      const from = f[1]!.replace(/\$\{(\w+)\}/g, (_s, k: string) => df.args[k] ?? '');
      df.stages.push({ name: f[2] ?? String(df.stages.length), from, instructions: [] });
      continue;
    }
    const stage = df.stages.at(-1);
    if (!stage) throw new Error(`${op} before FROM`);
    const instruction: Instruction = { op, args, flags };
    const execText = op === 'HEALTHCHECK' ? args.replace(/^.*?\bCMD\s+/, '') : args;
    if (execText.startsWith('[')) instruction.exec = JSON.parse(execText) as string[];
    stage.instructions.push(instruction);
  }
  return df;
}

export function stage(df: Dockerfile, name: string): Stage {
  const s = df.stages.find((x) => x.name === name);
  if (!s) throw new Error(`no stage named ${name}`);
  return s;
}

export function instructions(s: Stage, op: string): Instruction[] {
  return s.instructions.filter((i) => i.op === op);
}

/** COPY's sources and destination (shell form). */
export function copyPaths(i: Instruction): { sources: string[]; dest: string } {
  const parts = i.args.split(/\s+/);
  return { sources: parts.slice(0, -1), dest: parts.at(-1)! };
}
