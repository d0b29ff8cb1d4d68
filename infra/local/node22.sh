# Source this file (`. infra/local/node22.sh`): it puts Node 22 first on PATH when the
# system's node is older (Node 20 is past its end of life; the image runs Node 22). The
# binary comes from the npm registry's `node` package, which npx caches after the first fetch.
# npm itself then runs on it too (its launcher asks PATH for `node`).
case "$(node --version 2>/dev/null)" in
  v22.*|v24.*) ;;
  *)
    _kt_node22=$(npx -y node@22 -p process.execPath) || { echo "node22.sh: could not fetch Node 22 through npx" >&2; return 1 2>/dev/null || exit 1; }
    PATH="$(dirname "$_kt_node22"):$PATH"
    export PATH
    NODE22="$_kt_node22"
    export NODE22
    unset _kt_node22
    ;;
esac
echo "using node $(node --version) ($(command -v node))" >&2
