"""Agent-written paths: what resolves, what is refused (and why), and the protected globs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from guard import policy as policy_mod
from guard.files.paths import protected_finding, resolve
from guard.text.globs import matches


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    (r / ".git").mkdir(parents=True)
    (r / "src").mkdir()
    (r / "src" / "a.py").write_text("x\n")
    (r / "real").mkdir()
    (r / "real" / "b.py").write_text("y\n")
    return r


ACCEPTED = [
    ("plain", "src/a.py", "src/a.py"),
    ("dot-slash", "./src/a.py", "src/a.py"),
    ("double-slash", "src//a.py", "src/a.py"),
    ("inner-dot", "src/./a.py", "src/a.py"),
    ("dotdot-inside", "src/../README.md", "README.md"),
    ("new-folders", "new/deep/file.py", "new/deep/file.py"),
    ("gitignore-is-a-file", ".gitignore", ".gitignore"),
    ("github-folder", ".github/dependabot.yml", ".github/dependabot.yml"),
    ("name-255-bytes", "d/" + "x" * 255, "d/" + "x" * 255),
    ("unicode-name", "src/café.py", "src/café.py"),
    ("space-in-name", "docs/my file.md", "docs/my file.md"),
]


@pytest.mark.parametrize("raw,expected", [a[1:] for a in ACCEPTED], ids=[a[0] for a in ACCEPTED])
def test_accepted(root: Path, raw: str, expected: str) -> None:
    assert resolve(root, raw) == (expected, None)


def test_absolute_inside_root(root: Path) -> None:
    assert resolve(root, str(root / "src" / "a.py")) == ("src/a.py", None)
    assert resolve(root, str(root) + "/new.py") == ("new.py", None)


def test_root_reached_through_a_symlink(root: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(root)
    # The root as given (a link) and the root's real path both work, either way round.
    assert resolve(alias, str(root / "src" / "a.py")) == ("src/a.py", None)
    assert resolve(alias, str(alias / "src" / "a.py")) == ("src/a.py", None)
    assert resolve(root, str(Path(os.path.realpath(root)) / "src/a.py")) == ("src/a.py", None)


OUTSIDE = [
    ("empty", "", "empty"),
    ("blank", "   ", "empty"),
    ("dot", ".", "repository root"),
    ("root-slash", "./", "folder"),
    ("trailing-slash", "src/", "folder"),
    ("dotdot", "../etc/passwd", "'..' leaves the repository"),
    ("dotdot-deeper", "src/../../x", "'..' leaves the repository"),
    ("absolute-outside", "/etc/passwd", "outside the repository"),
    ("nul", "src/a\x00.py", "control character"),
    ("newline", "src/a\n.py", "control character"),
    ("tab", "src/a\t.py", "control character"),
    ("escape", "src/\x1b[31m.py", "control character"),
    ("delete", "src/a\x7f.py", "control character"),
    ("long-component", "d/" + "x" * 256, "longer than 255 bytes"),
    ("long-multibyte", "d/" + "é" * 128, "longer than 255 bytes"),
]


@pytest.mark.parametrize("raw,what", [o[1:] for o in OUTSIDE], ids=[o[0] for o in OUTSIDE])
def test_outside(root: Path, raw: str, what: str) -> None:
    path, finding = resolve(root, raw)
    assert path is None and finding is not None
    assert finding.code == "path-outside" and finding.severity == "error"
    assert what in finding.message and finding.hint


def test_absolute_root_itself(root: Path) -> None:
    _path, finding = resolve(root, str(root))
    assert finding is not None and "repository root" in finding.message


def test_symlinked_parent_folder(root: Path) -> None:
    (root / "link").symlink_to(root / "real")
    path, finding = resolve(root, "link/b.py")
    assert path is None and finding is not None and finding.code == "path-outside"
    assert "the folder 'link' is a symbolic link" in finding.message
    assert "real location" in finding.hint


def test_symlink_deep_in_the_path(root: Path) -> None:
    (root / "real" / "inner").mkdir()
    (root / "real" / "hop").symlink_to(root / "real" / "inner")
    _path, finding = resolve(root, "real/hop/c.py")
    assert finding is not None and "'real/hop'" in finding.message


def test_symlinked_file(root: Path) -> None:
    (root / "src" / "alias.py").symlink_to(root / "src" / "a.py")
    _path, finding = resolve(root, "src/alias.py")
    assert finding is not None and finding.code == "path-outside"
    assert "the file itself is a symbolic link" in finding.message


def test_symlink_leading_outside(root: Path, tmp_path: Path) -> None:
    (root / "out").symlink_to(tmp_path)
    _path, finding = resolve(root, "out/repo/src/a.py")
    assert finding is not None and finding.code == "path-outside"


def test_dangling_symlink(root: Path) -> None:
    (root / "gone").symlink_to(root / "nowhere")
    _path, finding = resolve(root, "gone")
    assert finding is not None and finding.code == "path-outside"


def test_dotdot_through_a_symlink(root: Path) -> None:
    (root / "link").symlink_to(root / "real")
    _path, finding = resolve(root, "link/../src/a.py")
    assert finding is not None and "symbolic link" in finding.message


DOT_GIT = [
    ("plain", ".git/config"),
    ("upper", ".GIT/config"),
    ("mixed", ".Git/hooks/pre-commit"),
    ("trailing-dot", ".git./config"),
    ("trailing-space", ".git /config"),
    ("trailing-dots-spaces", ".git. . /config"),
    ("fullwidth-dot", "\uff0egit/config"),
    ("fullwidth-letters", ".\uff47\uff49\uff54/config"),
    ("zero-width", ".g\u200cit/config"),
    ("ntfs-short-name", "GIT~1/config"),
    ("nested", "vendor/.git/config"),
    ("the-folder", ".git"),
    ("absolute", "{root}/.git/HEAD"),
]


@pytest.mark.parametrize("raw", [d[1] for d in DOT_GIT], ids=[d[0] for d in DOT_GIT])
def test_dot_git_is_protected(root: Path, raw: str) -> None:
    path, finding = resolve(root, raw.format(root=root))
    assert path is None and finding is not None
    assert finding.code == "path-protected" and finding.severity == "error"
    assert ".git" in finding.message


def test_submodule(root: Path) -> None:
    (root / "vendor" / "lib").mkdir(parents=True)
    (root / "vendor" / "lib" / ".git").write_text("gitdir: ../../.git/modules/lib\n")
    for raw in ("vendor/lib/x.c", "vendor/lib/deep/y.c", "vendor/lib"):
        path, finding = resolve(root, raw)
        assert path is None and finding is not None and finding.code == "path-protected", raw
        assert "submodule" in finding.message and "'vendor/lib'" in finding.message
    assert resolve(root, "vendor/other.c") == ("vendor/other.c", None)


# --- protected globs ---------------------------------------------------------------------
GLOBS = [
    (".github/workflows/**", ".github/workflows/ci.yml", True),
    (".github/workflows/**", ".github/workflows/sub/x.yml", True),
    (".github/workflows/**", ".github/dependabot.yml", False),
    (".github/workflows/**", "sub/.github/workflows/ci.yml", False),
    (".env", ".env", True),
    (".env", "app/.env", True),  # no slash: any depth, as in .gitignore
    (".env", ".envrc", False),
    (".env.*", ".env.local", True),
    (".env*", ".envrc", True),
    ("**/*.pem", "a.pem", True),
    ("**/*.pem", "certs/deep/a.pem", True),
    ("**/*.pem", "a.pem.txt", False),
    ("**/id_rsa*", "home/.ssh/id_rsa.pub", True),
    ("/build", "build/out.o", True),
    ("/build", "src/build/out.o", False),
    ("docs/", "docs/index.md", True),
    ("docs/", "docs", False),
    ("a/**/z.txt", "a/z.txt", True),
    ("a/**/z.txt", "a/b/c/z.txt", True),
    ("a/**/z.txt", "x/a/z.txt", False),
    ("secrets", "secrets/key.txt", True),  # a folder's pattern covers its contents
    ("*.lock", "deep/poetry.lock", True),
    ("file?.txt", "file1.txt", True),
    ("file?.txt", "file10.txt", False),
    ("[ab].txt", "b.txt", True),
    ("[!ab].txt", "c.txt", True),
    ("[!ab].txt", "a.txt", False),
    (".ENV", ".env", True),  # case is ignored: protection must survive a case-insensitive filesystem
]


@pytest.mark.parametrize("pattern,path,expected", GLOBS, ids=[f"{g[0]} {g[1]}" for g in GLOBS])
def test_glob(pattern: str, path: str, expected: bool) -> None:
    assert matches(path, pattern) is expected


DEFAULT = policy_mod.load(None, "default")


@pytest.mark.parametrize(
    "path",
    [
        ".github/workflows/release.yml",
        ".gitlab-ci.yml",
        ".env",
        "api/.env",
        ".env.production",
        "certs/server.pem",
        "keys/deploy.key",
        "id_rsa",
        ".ssh/id_rsa.pub",
    ],
)
def test_default_protected(path: str) -> None:
    finding = protected_finding(path, DEFAULT)
    assert finding is not None and finding.code == "path-protected" and finding.severity == "error"
    assert "paths.protected, from preset default" in finding.message
    assert finding.hint


@pytest.mark.parametrize("path", ["src/app.py", "README.md", ".github/dependabot.yml", "docs/env.md"])
def test_default_not_protected(path: str) -> None:
    assert protected_finding(path, DEFAULT) is None


def policy_of(tmp_path: Path, text: str) -> policy_mod.Policy:
    f = tmp_path / "p.yaml"
    f.write_text(text)
    return policy_mod.load(None, str(f))


def test_allow_list(tmp_path: Path) -> None:
    pol = policy_of(tmp_path, "paths: {allow: ['src/**', 'tests/**']}\n")
    assert protected_finding("src/a.py", pol) is None
    finding = protected_finding("setup.py", pol)
    assert finding is not None and "outside the allow-list" in finding.message and "src/**" in finding.message


def test_protected_wins_over_allow(tmp_path: Path) -> None:
    pol = policy_of(tmp_path, "paths: {allow: ['**']}\n")
    assert protected_finding(".env", pol) is not None


def test_level_warning_and_off(tmp_path: Path) -> None:
    warn = policy_of(tmp_path, "checks: {path-protected: warning}\n")
    finding = protected_finding(".env", warn)
    assert finding is not None and finding.severity == "warning"
    off = policy_of(tmp_path, "checks: {path-protected: 'off'}\n")
    assert protected_finding(".env", off) is None
    git = protected_finding("a/.GIT/config", off)
    assert git is not None and git.severity == "error"
