"""kadmit's reading of a Go-template action (manifests/goaction.py `parses`) against Go's own text/template parser with
a FuncMap of the same names (goaction.NAMES: Helm's, Sprig's and Go's), over every distinct `{{ … }}` of the YAML
files in the mirrored repositories (/work/.mirror/*/repo, bare git directories; or the files given) and a few written
here. An action Go parses in some template around it counts as parsed (`{{ end }}` after an `{{ if }}`; an undeclared
`$x` is Go's error only for want of the `{{ $x := … }}` before it). Prints each action read differently; nothing here
asserts. Run: `PATH=/usr/local/go/bin:$PATH .venv/bin/python bench/goaction_sweep.py [FILE...]` (builds a small Go
program in a temporary directory). Figures 2026-12-06 (kinds2): 2,673 distinct actions (2,661 in 40 mirrored
repositories, and those written here), 4 read differently (KWOK stages' `$x | Quote`: Go stops at the undeclared variable, kadmit at the unknown function)."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from kadmit.manifests.goaction import NAMES, parses  # noqa: E402
from kadmit.manifests.notread import _TEMPLATE  # noqa: E402

# the templates an action is tried in: alone, inside an if/range/with, before an {{end}} (an opener)
WRAPS = ["%s", "{{if .}}%s", "{{range .}}%s", "{{with .}}%s", "{{range .}}%s{{end}}", "{{if .}}%s{{end}}", "%s{{end}}",
         "{{range .}}%s{{end}}{{end}}", "{{if .}}%s{{end}}{{end}}", "{{range .}}{{if .}}%s{{end}}{{end}}"]
GO = """package main
import ("bufio"; "encoding/json"; "fmt"; "os"; "text/template")
var names = %s
var wraps = %s
func main() {
	fm := template.FuncMap{}
	for _, n := range names { fm[n] = func(a ...interface{}) interface{} { return nil } }
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var a string
		json.Unmarshal(sc.Bytes(), &a)
		var first error
		ok := false
		for _, w := range wraps {
			if _, err := template.New("x").Funcs(fm).Parse(fmt.Sprintf(w, a)); err == nil { ok = true; break } else if first == nil { first = err }
		}
		if ok { fmt.Println("OK") } else { b, _ := json.Marshal(first.Error()); fmt.Println(string(b)) }
	}
}
"""
WRITTEN = [" name | lower ", " .Values.x | lower ", " item.name ", " 'abc' ", " 'a' ", "=a", " $i, $v := .x ",
           " range $i, $v := .x ", " x | default('a') ", " .x || .y ", "/* note */", " end ", " git-auth "]


def mirrored() -> dict[str, str]:
    """Each distinct action's inner text in the mirrored repositories' YAML files -> the first repository holding it."""
    out: dict[str, str] = {}
    for d in sorted(os.listdir("/work/.mirror")) if os.path.isdir("/work/.mirror") else []:
        g = f"/work/.mirror/{d}/repo"
        if not os.path.isdir(g):
            continue
        tree = subprocess.run(["git", "--git-dir", g, "ls-tree", "-r", "HEAD"], capture_output=True, text=True).stdout
        blobs = [line.split()[2] for line in tree.splitlines()
                 if line.split("\t")[-1].endswith((".yaml", ".yml", ".tpl")) and line.split()[1] == "blob"]
        if blobs:
            text = subprocess.run(["git", "--git-dir", g, "cat-file", "--batch"], input="\n".join(blobs).encode() + b"\n",
                                  capture_output=True).stdout.decode("utf-8", "replace")
            for inner in _TEMPLATE.findall(text):
                out.setdefault(inner, d)
    return out


def main() -> None:
    actions = {a: "written here" for a in WRITTEN}
    if sys.argv[1:]:
        for path in sys.argv[1:]:
            actions.update({a: path for a in _TEMPLATE.findall(Path(path).read_text(errors="replace"))})
    else:
        actions.update(mirrored())
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "go.mod").write_text("module goaction\ngo 1.22\n")
        (Path(tmp) / "main.go").write_text(GO % ("[]string{" + ", ".join(json.dumps(n) for n in sorted(NAMES)) + "}",
                                                 "[]string{" + ", ".join(json.dumps(w) for w in WRAPS) + "}"))
        subprocess.run(["go", "build", "-o", "check", "."], cwd=tmp, check=True)
        keys = sorted(actions)
        answers = subprocess.run([str(Path(tmp) / "check")], input="\n".join(json.dumps("{{" + k + "}}") for k in keys) + "\n",
                                 capture_output=True, text=True, check=True).stdout.splitlines()
    differ = 0
    for inner, answer in zip(keys, answers):
        go = answer == "OK" or "undefined variable" in answer
        if go != parses(inner):
            differ += 1
            said = "parses it" if answer == "OK" else "stops at an undeclared variable first" if go else json.loads(answer)
            print(f"DIFFER {inner!r}: Go {said}; kadmit {'parses it' if not go else 'does not'} ({actions[inner]})")
    print(f"{len(keys) - differ} of {len(keys)} actions read alike, {differ} differ")


if __name__ == "__main__":
    main()
