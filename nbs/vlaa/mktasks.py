"""One-off writer of guilab's JupyterLab task files (OSWorld shape). Kept beside the data as its provenance."""
import json, sys
from pathlib import Path
OUT = Path(sys.argv[1]); OUT.mkdir(parents=True, exist_ok=True)
for f in OUT.glob("*.json"): f.unlink()
T = []
def task(id, instruction, config, evaluator, trajectory, criteria, apps=("jupyterlab",), workflow=None, infeasible=False):
    d = {"id": id, "snapshot": "jupyterlab", "instruction": instruction, "source": "guilab", "config": config,
         "trajectory": trajectory, "related_apps": list(apps), "evaluator": evaluator, "criteria": criteria,
         "workflow": workflow, "feasible": not infeasible}
    T.append(d)
F = lambda path, content: {"type": "file", "parameters": {"path": path, "content": content}}
D = lambda path: {"type": "folder", "parameters": {"path": path}}
NB = lambda path, cells, kernel="python3": {"type": "notebook", "parameters": {"path": path, "cells": cells, "kernel": kernel}}
OPEN = lambda path: {"type": "open", "parameters": {"path": path}}
SET = lambda plugin, values: {"type": "settings", "parameters": {"plugin": plugin, "values": values}}
# Reference solutions wait for what the next step needs (`until`: BrowserEnv.wait_until conditions), never a fixed sleep.
P = lambda label, until=None: {"type": "palette", "label": label, **({"until": until} if until else {})}
U = lambda step, until: {**step, "until": until}   # this step, then wait until `until` holds
O = lambda path: {"type": "open", "path": path}
K = lambda key: {"type": "key", "key": key}
H = lambda *keys: {"type": "hotkey", "keys": list(keys)}
TY = lambda text: {"type": "type", "text": text}
CL = lambda role, name, clicks=1, regex=False: {"type": "click", "target": {"role": role, "name": name, "regex": regex}, "clicks": clicks}
CLEAN = {"absent": ".lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-dirty"}   # no open document has unsaved changes
DIALOG = {"selector": ".jp-Dialog"}
NO_DIALOG = {"absent": ".jp-Dialog"}
OUTPUT = lambda text: {"selector": ".jp-OutputArea-output", "text": text}   # a cell output shows this (regex)
EDITING = lambda widget: {"selector": f"{widget} .cm-content", "focused": True}   # the editor has the keyboard focus
SAVE = [U(H("ctrl", "s"), CLEAN)]
SAVE_NEW = [U(H("ctrl", "s"), DIALOG), U(K("Enter"), {"all": [NO_DIALOG, CLEAN]})]   # a new file: accept the "Rename file" dialog of the first save
TERM = [P("New Terminal", {"selector": ".jp-Terminal .xterm-helper-textarea", "focused": True})]
def sh(cmd, until): return [TY(cmd), U(K("Enter"), until)]   # until: the command's effect, read through the contents API
RENAMING = {"selector": ".jp-DirListing-editor", "focused": True}   # the file browser's name editor is open
KERNEL_IDLE = {"selector": '.jp-Notebook-ExecutionIndicator[data-status="idle"]'}   # the notebook's kernel is up and idle
KERNEL_CHANGE = [K("Escape"), U(K("Enter"), KERNEL_IDLE), U(H("ctrl", "s"), CLEAN)]   # the missing kernel was replaced by Python 3: save
def ev(func, result, expected=None, post=None):
    return {"func": func, "result": result, "expected": expected, "postconfig": post or []}
def conj(*evs):
    return {"func": [e["func"] for e in evs], "conj": "and", "result": [e["result"] for e in evs],
            "expected": [e["expected"] for e in evs], "postconfig": [p for e in evs for p in e["postconfig"]]}
FILE = lambda p: {"type": "file", "path": p}
LIST = lambda p="": {"type": "listing", "path": p}
NBR = lambda p: {"type": "notebook", "path": p}
SETR = lambda plugin, key: {"type": "setting", "plugin": plugin, "key": key}
LAY = {"type": "layout"}
TERMS = {"type": "terminals"}
SESS = {"type": "sessions"}
item = lambda name: f'listitem "Name: {name}'
SLEEP = [{"type": "sleep", "parameters": {"seconds": 0.5}}]   # then the checker waits for a 1 s quiet page (guilab.vlaa.checkers.check_task)

# ---------------- files and folders through the terminal
task("term-mkdir-results", "Open a terminal and create a folder named `results` in the workspace.",
     [F("README.md", "# Project\n")], ev("names_include", LIST(), {"names": ["results/"]}),
     TERM + sh("mkdir results", {"file": "results"}), [item("results")], workflow="terminal")
task("term-echo-todo", "Create a text file `todo.txt` whose only line is `buy milk`.",
     [F("README.md", "# Project\n")], ev("text_equals", FILE("todo.txt"), {"text": "buy milk"}),
     TERM + sh("echo 'buy milk' > todo.txt", {"file": "todo.txt"}), [item("todo.txt")], workflow="terminal")
task("term-move-notes", "Move the file `notes.md` into the folder `archive`.",
     [F("notes.md", "- meeting at 10\n"), D("archive")],
     conj(ev("names_include", LIST("archive"), {"names": ["notes.md"]}), ev("names_exclude", LIST(), {"names": ["notes.md"]})),
     TERM + sh("mv notes.md archive/", {"all": [{"gone": "notes.md"}, {"file": "archive/notes.md"}]}), [], workflow="terminal")
task("term-copy-data", "Make a copy of `data.csv` called `data_backup.csv` next to it.",
     [F("data.csv", "a,b\n1,2\n3,4\n")],
     conj(ev("text_equals", FILE("data_backup.csv"), {"text": "a,b\n1,2\n3,4"}), ev("text_equals", FILE("data.csv"), {"text": "a,b\n1,2\n3,4"})),
     TERM + sh("cp data.csv data_backup.csv", {"file": "data_backup.csv"}), [item("data_backup.csv")], workflow="terminal")
task("term-delete-scratch", "Delete the file `scratch.txt` but keep `keep.txt`.",
     [F("scratch.txt", "tmp\n"), F("keep.txt", "important\n")],
     conj(ev("names_exclude", LIST(), {"names": ["scratch.txt"]}), ev("names_include", LIST(), {"names": ["keep.txt"]})),
     TERM + sh("rm scratch.txt", {"gone": "scratch.txt"}), [], workflow="terminal")
task("term-rename-draft", "Rename `draft.md` to `final.md`.",
     [F("draft.md", "# Draft\n")],
     conj(ev("text_equals", FILE("final.md"), {"text": "# Draft"}), ev("names_exclude", LIST(), {"names": ["draft.md"]})),
     TERM + sh("mv draft.md final.md", {"all": [{"gone": "draft.md"}, {"file": "final.md"}]}), [item("final.md")], workflow="terminal")
task("term-count-lines", "Write the number of lines of `log.txt` (just the number) into a new file `count.txt`.",
     [F("log.txt", "".join(f"event {i}\n" for i in range(7)))], ev("text_equals", FILE("count.txt"), {"text": "7"}),
     TERM + sh("wc -l < log.txt > count.txt", {"file": "count.txt"}), [item("count.txt")], workflow="terminal")
task("term-run-script", "Run the Python script `make_report.py`; it writes `report.txt`.",
     [F("make_report.py", "open('report.txt', 'w').write('total: %d\\n' % sum(range(10)))\n")],
     ev("text_equals", FILE("report.txt"), {"text": "total: 45"}),
     TERM + sh("python make_report.py", {"file": "report.txt"}), [item("report.txt")], workflow="terminal")
task("term-mkdir-nested", "Create the nested folders `runs/2024/january` in one go.",
     [F("README.md", "# Project\n")], ev("names_include", LIST("runs/2024"), {"names": ["january/"]}),
     TERM + sh("mkdir -p runs/2024/january", {"file": "runs/2024/january"}), [item("runs")], workflow="terminal")
task("term-open-terminal", "Open a new terminal session.",
     [F("README.md", "# Project\n")], ev("count_at_least", TERMS, {"n": 1}),
     TERM, ["tab \"Terminal 1\""], workflow="terminal")

# ---------------- the file browser
task("fb-new-folder", "Use the file browser's New Folder button to create a folder named `figures`.",
     [F("README.md", "# Project\n")], ev("names_include", LIST(), {"names": ["figures/"]}),
     [U(CL("button", "New Folder"), RENAMING), H("ctrl", "a"), TY("figures"), U(K("Enter"), {"file": "figures"})], [item("figures")], workflow="file browser")
task("fb-rename-file", "In the file browser, rename `old_name.txt` to `new_name.txt`.",
     [F("old_name.txt", "content\n")], conj(ev("text_equals", FILE("new_name.txt"), {"text": "content"}),
                                            ev("names_exclude", LIST(), {"names": ["old_name.txt"]})),
     [CL("listitem", "^Name: old_name\\.txt", regex=True), U(K("F2"), RENAMING), H("ctrl", "a"), TY("new_name.txt"),
      U(K("Enter"), {"all": [{"file": "new_name.txt"}, {"gone": "old_name.txt"}]})],
     [item("new_name.txt")], workflow="file browser")
task("fb-delete-file", "Delete `obsolete.csv` using the file browser.",
     [F("obsolete.csv", "x\n1\n"), F("current.csv", "x\n2\n")],
     conj(ev("names_exclude", LIST(), {"names": ["obsolete.csv"]}), ev("names_include", LIST(), {"names": ["current.csv"]})),
     [CL("listitem", "^Name: obsolete\\.csv", regex=True), U(K("Delete"), DIALOG), U(CL("button", "Move to Trash"), {"gone": "obsolete.csv"})], [], workflow="file browser")
task("fb-folder-in-experiments", "Create a folder named `baseline` inside the `experiments` folder.",
     [D("experiments"), F("README.md", "# Project\n")], ev("names_include", LIST("experiments"), {"names": ["baseline/"]}),
     [U(CL("listitem", "^Name: experiments", clicks=2, regex=True), {"selector": ".jp-BreadCrumbs", "text": "experiments"}),
      U(CL("button", "New Folder"), RENAMING), H("ctrl", "a"), TY("baseline"), U(K("Enter"), {"file": "experiments/baseline"})],
     [item("baseline")], workflow="file browser")
task("fb-duplicate", "Duplicate `template.md` (the copy keeps the default name JupyterLab gives it).",
     [F("template.md", "# Template\n")], ev("names_match", LIST(), {"pattern": "^template-Copy\\d*\\.md$"}),
     [{**CL("listitem", "^Name: template\\.md", regex=True), "button": "right"}, U(CL("menuitem", "^Duplicate", regex=True), {"listed": "^template-Copy"})], [item("template-Copy")], workflow="file browser")

# ---------------- notebooks and cells
CELLS = [{"source": "x = 6 * 7"}, {"source": "print(x)"}, {"cell_type": "markdown", "source": "# Notes"}, {"source": "x + 1"}]
task("nb-run-all", "Run every cell of `analysis.ipynb` and save it with its outputs.",
     [NB("analysis.ipynb", CELLS), OPEN("analysis.ipynb")],
     conj(ev("nb_all_executed", NBR("analysis.ipynb")), ev("nb_output_contains", NBR("analysis.ipynb"), {"text": "42"})),
     [P("Run All Cells", OUTPUT("^43$"))] + SAVE, ["42"], workflow="notebook")
OUTS = [{"output_type": "stream", "name": "stdout", "text": "42\n"}]
task("nb-clear-outputs", "Clear the outputs of all cells in `results.ipynb` and save the notebook.",
     [NB("results.ipynb", [{"source": "print(42)", "outputs": OUTS, "execution_count": 1},
                           {"source": "print('done')", "outputs": [{"output_type": "stream", "name": "stdout", "text": "done\n"}], "execution_count": 2}]),
      OPEN("results.ipynb")], ev("nb_no_outputs", NBR("results.ipynb")),
     [P("Clear Outputs of All Cells", {"absent": ".jp-OutputArea-output"})] + SAVE, [], workflow="notebook")
task("nb-append-cell", "Add a code cell `print('the end')` at the end of `story.ipynb` and save.",
     [NB("story.ipynb", [{"source": "a = 1"}, {"source": "b = 2"}]), OPEN("story.ipynb")],
     ev("nb_last_source", NBR("story.ipynb"), {"source": "print('the end')"}),
     [K("Escape"), K("j"), K("b"), K("Enter"), TY("print('the end')"), K("Escape")] + SAVE, ["the end"], workflow="notebook")
task("nb-move-down", "In `order.ipynb`, move the first cell below the second one and save.",
     [NB("order.ipynb", [{"source": "second = 2"}, {"source": "first = 1"}, {"source": "third = 3"}]), OPEN("order.ipynb")],
     ev("nb_sources", NBR("order.ipynb"), {"sources": ["first = 1", "second = 2", "third = 3"]}),
     [K("Escape"), H("ctrl", "shift", "Down")] + SAVE, [], workflow="notebook")
task("nb-move-up", "In `order2.ipynb`, move the last cell to the top (above the other two) and save.",
     [NB("order2.ipynb", [{"source": "b = 2"}, {"source": "c = 3"}, {"source": "a = 1"}]), OPEN("order2.ipynb")],
     ev("nb_sources", NBR("order2.ipynb"), {"sources": ["a = 1", "b = 2", "c = 3"]}),
     [K("Escape"), K("j"), K("j"), H("ctrl", "shift", "Up"), H("ctrl", "shift", "Up")] + SAVE, [], workflow="notebook")
task("nb-to-markdown", "Turn the first cell of `doc.ipynb` into a Markdown cell and save.",
     [NB("doc.ipynb", [{"source": "Introduction to the data"}, {"source": "1 + 1"}]), OPEN("doc.ipynb")],
     ev("nb_cell_types", NBR("doc.ipynb"), {"types": ["markdown", "code"]}),
     [K("Escape"), K("m")] + SAVE, [], workflow="notebook")
task("nb-delete-cell", "Delete the second cell (`debug = True`) of `clean.ipynb` and save.",
     [NB("clean.ipynb", [{"source": "import math"}, {"source": "debug = True"}, {"source": "math.pi"}]), OPEN("clean.ipynb")],
     ev("nb_sources", NBR("clean.ipynb"), {"sources": ["import math", "math.pi"]}),
     [K("Escape"), K("j"), K("d"), K("d")] + SAVE, [], workflow="notebook")
task("nb-new-notebook", "Create a new notebook (any name) whose first cell is `print('hello')`, and save it.",
     [F("README.md", "# Project\n")], ev("any_nb_source", LIST(), {"source": "print('hello')"}),
     [P("New Notebook", {"selector": ".jp-Notebook .jp-Cell.jp-mod-active"}), U(K("Enter"), EDITING(".jp-Notebook")), TY("print('hello')")] + SAVE_NEW, [item("Untitled")], workflow="notebook")
task("nb-run-one-cell", "Run only the first cell of `calc.ipynb` and save; the other cells stay unexecuted.",
     [NB("calc.ipynb", [{"source": "2 ** 10"}, {"source": "raise SystemExit"}]), OPEN("calc.ipynb")],
     ev("nb_executed_pattern", NBR("calc.ipynb"), {"executed": [True, False], "text": "1024"}),
     [K("Escape"), U(H("ctrl", "Enter"), OUTPUT("^1024$"))] + SAVE, ["1024"], workflow="notebook")
task("nb-heading", "Make the first cell of `title.ipynb` a level-1 heading cell and save.",
     [NB("title.ipynb", [{"cell_type": "markdown", "source": "Quarterly report"}, {"source": "1"}]), OPEN("title.ipynb")],
     ev("nb_first_source", NBR("title.ipynb"), {"source": "# Quarterly report"}),
     [K("Escape"), K("1")] + SAVE, [], workflow="notebook")
task("nb-restart-run-all", "Restart the kernel of `fresh.ipynb`, run all cells, and save.",
     [NB("fresh.ipynb", [{"source": "import sys\nn = 3"}, {"source": "n * 111"}]), OPEN("fresh.ipynb")],
     conj(ev("nb_all_executed", NBR("fresh.ipynb")), ev("nb_output_contains", NBR("fresh.ipynb"), {"text": "333"})),
     [P("Restart Kernel and Run All Cells…", DIALOG), U(K("Enter"), OUTPUT("^333$"))] + SAVE, ["333"], workflow="notebook")
task("nb-change-kernel-python", "`legacy.ipynb` asks for a kernel that is not installed; switch it to the Python 3 kernel and save.",
     [NB("legacy.ipynb", [{"source": "1 + 1"}], kernel="python2-legacy"), OPEN("legacy.ipynb")],
     ev("nb_kernel", NBR("legacy.ipynb"), {"name": "python3"}),
     KERNEL_CHANGE, [], workflow="notebook kernel")

# ---------------- the text editor
task("ed-append-readme", "Append the line `Contact: lab@example.org` at the end of `README.md` and save.",
     [F("README.md", "# Field study\n\nTwo sensors.\n"), OPEN("README.md")],
     ev("text_endswith", FILE("README.md"), {"text": "Contact: lab@example.org"}),
     [H("ctrl", "End"), TY("Contact: lab@example.org")] + SAVE, ["Contact: lab@example.org"], workflow="editor")
task("ed-new-text-file", "Create a new text file containing `first draft` and save it (the default name is fine).",
     [F("README.md", "# Project\n")], ev("any_file_text", LIST(), {"suffix": ".txt", "text": "first draft"}),
     [P("New Text File", EDITING(".jp-FileEditor")), TY("first draft")] + SAVE_NEW, [item("untitled")], workflow="editor")
task("ed-new-markdown", "Create a new Markdown file whose content is `# Ideas` and save it.",
     [F("README.md", "# Project\n")], ev("any_file_text", LIST(), {"suffix": ".md", "text": "# Ideas"}),
     [P("New Markdown File", EDITING(".jp-FileEditor")), TY("# Ideas")] + SAVE_NEW, [item("untitled")], workflow="editor")
task("ed-new-python", "Create a new Python file containing `print(1 + 2)` and save it.",
     [F("README.md", "# Project\n")], ev("any_file_text", LIST(), {"suffix": ".py", "text": "print(1 + 2)"}),
     [P("New Python File", EDITING(".jp-FileEditor")), TY("print(1 + 2)")] + SAVE_NEW, [item("untitled")], workflow="editor")
task("ed-edit-yaml", "In `config.yaml`, change the units from `celsius` to `kelvin` and save.",
     [F("config.yaml", "sensors: 2\nunits: celsius\n"), OPEN("config.yaml")],
     ev("text_equals", FILE("config.yaml"), {"text": "sensors: 2\nunits: kelvin"}),
     [H("ctrl", "a"), TY("sensors: 2\nunits: kelvin\n")] + SAVE, ["kelvin"], workflow="editor")
task("ed-insert-top", "Insert the line `# tool, version 1` at the very top of `tool.py` and save.",
     [F("tool.py", "print('tool')\n"), OPEN("tool.py")],
     ev("text_equals", FILE("tool.py"), {"text": "# tool, version 1\nprint('tool')"}),
     [H("ctrl", "Home"), TY("# tool, version 1\n")] + SAVE, [], workflow="editor")
task("ed-find-replace", "Replace every `TODO` with `DONE` in `tasks.txt` and save.",
     [F("tasks.txt", "TODO write\nTODO test\nTODO ship\n"), OPEN("tasks.txt")],
     ev("text_equals", FILE("tasks.txt"), {"text": "DONE write\nDONE test\nDONE ship"}),
     [H("ctrl", "a"), TY("DONE write\nDONE test\nDONE ship\n")] + SAVE, ["DONE"], workflow="editor")

# ---------------- settings
TH = "@jupyterlab/apputils-extension:themes"
THEME = lambda name: {"selector": f'body[data-jp-theme-name="{name}"]', "attached": True}   # the page wears that theme
task("set-theme-dark", "Switch JupyterLab to the dark theme (JupyterLab Dark).", [F("README.md", "# Project\n")],
     ev("setting_equals", SETR(TH, "theme"), {"value": "JupyterLab Dark"}, SLEEP),
     [P("Use Theme: JupyterLab Dark", THEME("JupyterLab Dark"))], [], workflow="settings")
task("set-theme-hc", "Use the high-contrast dark theme.", [F("README.md", "# Project\n")],
     ev("setting_equals", SETR(TH, "theme"), {"value": "JupyterLab Dark High Contrast"}, SLEEP),
     [P("Use Theme: JupyterLab Dark High Contrast", THEME("JupyterLab Dark High Contrast"))], [], workflow="settings")
task("set-theme-light-back", "The interface is dark; switch it back to the light theme.",
     [F("README.md", "# Project\n"), SET(TH, {"theme": "JupyterLab Dark"})],
     ev("setting_equals", SETR(TH, "theme"), {"value": "JupyterLab Light"}, SLEEP),
     [P("Use Theme: JupyterLab Light", THEME("JupyterLab Light"))], [], workflow="settings")
task("set-autosave-off", "Turn off autosaving of documents.", [F("README.md", "# Project\n")],
     ev("setting_equals", SETR("@jupyterlab/docmanager-extension:plugin", "autosave"), {"value": False}, SLEEP),
     [P("Autosave Documents")], [], workflow="settings")
task("set-code-font-larger", "Make the code font larger.", [F("README.md", "# Project\n")],
     ev("setting_present", SETR(TH, "overrides.code-font-size"), None, SLEEP),
     [P("Increase Code Font Size")], [], workflow="settings")
task("set-ui-font-larger", "Increase the size of the user-interface font.", [F("README.md", "# Project\n")],
     ev("setting_present", SETR(TH, "overrides.ui-font-size1"), None, SLEEP),
     [P("Increase UI Font Size")], [], workflow="settings")
task("set-theme-scrollbars", "Make the scrollbars follow the theme.", [F("README.md", "# Project\n")],
     ev("setting_equals", SETR(TH, "theme-scrollbars"), {"value": True}, SLEEP),
     [P("Theme Scrollbars")], [], workflow="settings")
task("set-hide-statusbar", "Hide the status bar at the bottom of the window.", [F("README.md", "# Project\n")],
     ev("setting_equals", SETR("@jupyterlab/statusbar-extension:plugin", "visible"), {"value": False}, SLEEP),
     [P("Show Status Bar", {"absent": "#jp-main-statusbar"})], [], workflow="settings")
task("set-terminal-dark", "Use the dark terminal theme.", [F("README.md", "# Project\n")],
     ev("setting_equals", SETR("@jupyterlab/terminal-extension:plugin", "theme"), {"value": "dark"}, SLEEP),
     [P("Use Terminal Theme: Dark")], [], workflow="settings")

# ---------------- tabs and layout
task("lay-hide-left", "Collapse the left sidebar.", [F("README.md", "# Project\n")],
     ev("left_collapsed", LAY, {"collapsed": True}, SLEEP), [H("ctrl", "b")], [], workflow="layout")
task("lay-close-all", "Close all open tabs.",
     [F("a.md", "# A\n"), F("b.md", "# B\n"), OPEN("a.md"), OPEN("b.md")], ev("open_documents", LAY, {"paths": []}, SLEEP),
     [P("Close All Tabs")], [], workflow="layout")
task("lay-open-two", "Open both `plan.md` and `budget.csv` in tabs.",
     [F("plan.md", "# Plan\n"), F("budget.csv", "item,cost\npens,3\n")],
     ev("open_documents", LAY, {"paths": ["plan.md", "budget.csv"], "subset": True}, SLEEP),
     [O("plan.md"), O("budget.csv")], ['tab "plan.md"', 'tab "budget.csv"'], workflow="layout")

# ---------------- infeasible (JupyterLab cannot do these here): success only when the episode ends with `fail`
INF = lambda: {"func": "infeasible", "result": None, "expected": None, "postconfig": []}
B = [F("analysis.ipynb", json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})), F("README.md", "# Project\n")]
task("inf-r-kernel", "Switch `analysis.ipynb` to the R kernel.", B, INF(), [{"type": "fail"}], ["IRkernel"], infeasible=True)
task("inf-french-ui", "Change the JupyterLab interface language to French.", B, INF(), [{"type": "fail"}], ["Français"], infeasible=True)
task("inf-solarized", "Apply the Solarized Dark theme to JupyterLab.", B, INF(), [{"type": "fail"}], ["Solarized"], infeasible=True)
task("inf-git-history", "Show the git history of `analysis.ipynb` in the Git sidebar panel.", B, INF(), [{"type": "fail"}], ["Git"], infeasible=True)
task("inf-docx-export", "Use File ▸ Save and Export Notebook As ▸ Word to export `analysis.ipynb` as a .docx file.", B, INF(), [{"type": "fail"}], ["docx"], infeasible=True)
task("inf-trash-restore", "Restore `old_results.csv`, which was deleted last week, from the file browser's trash.", B, INF(), [{"type": "fail"}], ["old_results.csv"], infeasible=True)
task("inf-colab", "Open `analysis.ipynb` in Google Colab from JupyterLab's menu.", B, INF(), [{"type": "fail"}], ["Colab"], infeasible=True)
task("inf-spellcheck", "Turn on the built-in spell checker for Markdown cells.", B, INF(), [{"type": "fail"}], ["Spell"], infeasible=True)
task("inf-kernel-memory", "Set the kernel's memory limit to 64 GB from the Kernel menu.", B, INF(), [{"type": "fail"}], ["MemoryLimit 64 GB"], infeasible=True)

for t in T:
    (OUT / f"{t['id']}.json").write_text(json.dumps(t, indent=1, ensure_ascii=False) + "\n")
print(len(T), "tasks;", sum(t["feasible"] for t in T), "feasible")
