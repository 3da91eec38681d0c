#!/usr/bin/env python3
"""Applies a `git diff` patch to a folder without git or patch (the GPU machine has neither for
certain): each hunk's old lines must match exactly where the header says, or anywhere once.
  apply_patch.py PATCH FOLDER"""
import re
import sys


def hunks(lines):
    i = 0
    while i < len(lines):
        if lines[i].startswith('--- '):
            path = lines[i + 1][4:].strip()
            path = path[2:] if path.startswith('b/') else path
            i += 2
            file_hunks = []
            while i < len(lines) and lines[i].startswith('@@'):
                start = int(re.match(r'@@ -(\d+)', lines[i]).group(1))
                i += 1
                old, new = [], []
                while i < len(lines) and not lines[i].startswith(('@@', 'diff --git')):
                    line = lines[i]
                    if line.startswith('\\') or line == '':  # "no newline" notes; the file's end
                        i += 1
                        continue
                    tag, text = line[0], line[1:]
                    if tag in ' -':
                        old.append(text)
                    if tag in ' +':
                        new.append(text)
                    i += 1
                file_hunks.append((start, old, new))
            yield path, file_hunks
        else:
            i += 1


def main():
    patch, folder = sys.argv[1], sys.argv[2]
    lines = open(patch).read().split('\n')
    for path, file_hunks in hunks(lines):
        target = f"{folder}/{path}"
        text = open(target).read().split('\n')
        offset = 0
        for start, old, new in file_hunks:
            at = start - 1 + offset
            if text[at:at + len(old)] != old:
                found = [k for k in range(len(text)) if text[k:k + len(old)] == old]
                if len(found) != 1:
                    sys.exit(f"apply_patch: {path}: a hunk at line {start} does not apply")
                at = found[0]
            text[at:at + len(old)] = new
            offset += len(new) - len(old)
        open(target, 'w').write('\n'.join(text))
        print(f"patched {path} ({len(file_hunks)} hunks)")


main()
