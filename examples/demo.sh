#!/bin/sh
# A first apply on a throw-away repository: a diff with wrong hunk counts and a
# shifted line number lands (repairs reported), a placeholder edit is refused,
# and the turn is rolled back.  Usage: sh examples/demo.sh
set -eu
demo=$(mktemp -d "${TMPDIR:-/tmp}/agent-guard-demo.XXXXXX")
cd "$demo"
git init -q -b main .
git config user.name demo && git config user.email demo@example.com
printf 'import os\n\n\ndef greet(name):\n    return "hello " + name\n\n\ndef main():\n    print(greet("world"))\n' > app.py
git add app.py && git commit -qm "demo: initial"

echo "== 1. a diff as models write it: counts wrong, line number off by 3"
cat > fix.diff <<'PATCH'
--- a/app.py
+++ b/app.py
@@ -7,9 +7,9 @@
 def greet(name):
-    return "hello " + name
+    return f"hello {name}!"
PATCH
git agent-apply fix.diff

echo
echo "== 2. an edit that elides code is refused, nothing changes"
cat > lazy.json <<'PATCH'
{"file_path": "app.py", "old_string": "def main():\n    print(greet(\"world\"))", "new_string": "def main():\n    # ... rest of the code unchanged ..."}
PATCH
git agent-apply lazy.json || echo "(exit status $?: refused)"

echo
echo "== 3. the turn is on the shadow ref; HEAD and the index are untouched"
git agent-log -p
git status --short

echo
echo "== 4. roll the turn back"
git agent-rollback
git diff --stat
echo "demo repository left in $demo"
