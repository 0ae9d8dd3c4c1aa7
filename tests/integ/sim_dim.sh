#!/bin/sh
# rtopo-sim shift-dim: shifts along one dimension under the cost model,
# no network.  On meshes, every displacement of both dimensions (also
# negative and beyond the extent) takes min(|d| mod E, E - |d| mod E)
# steps with link load 1 and moves each block that many links of its
# class; Cannon's skew (rule -1,0) is free of contention in
# floor(E/2) steps; hypercube dimensions swap over one cube link; the
# OTIS lines place their data; the in-place form does too.  Every run
# checks the placement in memory (--check), the JSON must parse (when
# python3 is there), and bad arguments exit 2.  Every run is bounded.
top_builddir=${top_builddir:-.}
SIM="$top_builddir/tools/rtopo-sim"
fails=0
start=$(date +%s)

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

sim() {
    timeout 120 "$SIM" shift-dim "$@"
}

# field NAME: a top-level number, string or boolean of the JSON object in
# $json (the moves, line_disp and rounds come after the scalars)
field() {
    printf '%s\n' "${json%%,\"rounds\"*}" |
        sed -n "s/.*[{,]\"$1\":\(\"[^\"]*\"\|[^,}]*\).*/\1/p" | head -1 | tr -d '"'
}

# move CLASS: the hop count of one link class in $json's moves
move() {
    printf '%s\n' "$json" | sed -n "s/.*\"moves\":{[^}]*\"$1\":\([0-9]*\).*/\1/p"
}

# wellformed FILE: parses as JSON (skipped without python3)
wellformed() {
    command -v python3 >/dev/null 2>&1 || return 0
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1"
}

# ringsteps D E: min(|D| mod E, E - |D| mod E)
ringsteps() {
    awk -v d="$1" -v e="$2" 'BEGIN { if (d < 0) d = -d; m = d % e;
        print (m < e - m) ? m : e - m }'
}

tmp=$(mktemp) || exit 99
trap 'rm -f "$tmp"' EXIT

# meshes: every displacement 0..E-1 of both dimensions in one --all-disp
# run each, then a few outside that range one by one
for mesh in 2x2 3x3 3x5 4x4 2x7 6x4; do
    R=${mesh%x*}
    C=${mesh#*x}
    p=$((R * C))
    for dim in 0 1; do
        if [ "$dim" = 1 ]; then E=$C; cls=row; else E=$R; cls=col; fi
        echo "+ rtopo-sim shift-dim --topo mesh:$mesh --dim $dim --all-disp --bytes 4K --check --json"
        sim --topo "mesh:$mesh" --dim "$dim" --all-disp --bytes 4K --check --json >"$tmp" ||
            { fail "mesh:$mesh dim $dim --all-disp: exit status $?"; continue; }
        wellformed "$tmp" || fail "mesh:$mesh dim $dim --all-disp: not JSON"
        n=$(grep -c '^{"op":"shift-dim"' "$tmp")
        [ "$n" = "$E" ] || fail "mesh:$mesh dim $dim --all-disp: $n objects, expected $E"
        while IFS= read -r json; do
            case $json in '{'*) ;; *) continue ;; esac
            json=${json%,}
            d=$(field disp)
            want=$(ringsteps "$d" "$E")
            load=$([ "$want" = 0 ] && echo 0 || echo 1)
            [ "$(field steps)" = "$want" ] ||
                fail "mesh:$mesh dim $dim disp $d: $(field steps) steps, expected $want"
            [ "$(field max_link_load)" = "$load" ] ||
                fail "mesh:$mesh dim $dim disp $d: link load $(field max_link_load)"
            [ "$(move "$cls")" = $((p * want)) ] ||
                fail "mesh:$mesh dim $dim disp $d: $(move "$cls") $cls moves, expected $((p * want))"
            [ "$(field correct)" = true ] || fail "mesh:$mesh dim $dim disp $d: misplaced"
        done <"$tmp"
        for d in -1 -$((E + 1)) $((2 * E + 1)) $((3 * E)) -2147483648 2147483647; do
            json=$(sim --topo "mesh:$mesh" --dim "$dim" --disp "$d" --bytes 1000 --check --json) ||
                { fail "mesh:$mesh dim $dim disp $d: exit status $?"; continue; }
            want=$(ringsteps "$d" "$E")
            [ "$(field steps)" = "$want" ] ||
                fail "mesh:$mesh dim $dim disp $d: $(field steps) steps, expected $want"
            [ "$(field max_link_load)" -le 1 ] ||
                fail "mesh:$mesh dim $dim disp $d: link load $(field max_link_load)"
            [ "$(field correct)" = true ] || fail "mesh:$mesh dim $dim disp $d: misplaced"
        done
    done
done

# Cannon's skew: line L by -L, in floor(E/2) steps, each link direction
# used once per step at most; also in place, and with a rule whose lines
# all differ on a non-square mesh
for mesh in 3x3 4x4 5x5 8x8; do
    E=${mesh#*x}
    for dim in 0 1; do
        for ip in "" --inplace; do
            echo "+ rtopo-sim shift-dim --topo mesh:$mesh --dim $dim --rule -1,0 $ip --check --json"
            json=$(sim --topo "mesh:$mesh" --dim "$dim" --rule -1,0 --bytes 600K $ip --check --json) ||
                { fail "skew mesh:$mesh dim $dim $ip: exit status $?"; continue; }
            [ "$(field max_link_load)" = 1 ] ||
                fail "skew mesh:$mesh dim $dim $ip: link load $(field max_link_load)"
            [ "$(field correct)" = true ] || fail "skew mesh:$mesh dim $dim $ip: misplaced"
            if [ -z "$ip" ]; then
                [ "$(field steps)" = $((E / 2)) ] ||
                    fail "skew mesh:$mesh dim $dim: $(field steps) steps, expected $((E / 2))"
            else
                [ "$(field inplace)" = true ] || fail "skew mesh:$mesh dim $dim: not in place"
            fi
        done
    done
done
json=$(sim --topo mesh:6x5 --dim 1 --rule 2,1 --bytes 64K --check --json)
[ "$(field correct)" = true ] && [ "$(field max_link_load)" = 1 ] ||
    fail "rule 2,1 on mesh:6x5: correct $(field correct), load $(field max_link_load)"
printf '%s\n' "$json" | grep -q '"line_disp":\[1,3,0,2,4,1\]' ||
    fail "rule 2,1 on mesh:6x5: line displacements $(printf '%s\n' "$json" | grep -o '"line_disp":\[[^]]*\]')"

# hypercube: an odd displacement swaps over one cube link per rank, an
# even one stays local
for D in 1 3 5; do
    p=$((1 << D)); k=0
    while [ "$k" -lt "$D" ]; do
        json=$(sim --topo "hypercube:$D" --dim "$k" --disp 1 --bytes 64K --check --json) ||
            fail "hypercube:$D dim $k: exit status $?"
        [ "$(field steps)" = 1 ] && [ "$(field max_link_load)" = 1 ] &&
            [ "$(move cube)" = "$p" ] && [ "$(field correct)" = true ] ||
            fail "hypercube:$D dim $k disp 1: steps $(field steps), load $(field max_link_load), cube moves $(move cube), correct $(field correct)"
        json=$(sim --topo "hypercube:$D" --dim "$k" --disp -2 --check --json)
        [ "$(field steps)" = 0 ] && [ "$(move local)" = "$p" ] && [ "$(field correct)" = true ] ||
            fail "hypercube:$D dim $k disp -2: steps $(field steps), local $(move local)"
        k=$((k + 1))
    done
    json=$(sim --topo "hypercube:$D" --dim 0 --rule 1,1 --bytes 3000 --inplace --check --json)
    [ "$(field correct)" = true ] && [ "$(field max_link_load)" -le 1 ] ||
        fail "hypercube:$D rule 1,1 in place: correct $(field correct)"
done

# OTIS: every dimension, every displacement, data placed, no link shared
for t in otis-mesh:4 otis-mesh:9 otis-hypercube:4 otis-hypercube:8; do
    case $t in otis-mesh:*) nd=4 ;; *) nd=2 ;; esac
    k=0
    while [ "$k" -lt "$nd" ]; do
        sim --topo "$t" --dim "$k" --all-disp --bytes 10000 --check --json >"$tmp" ||
            fail "$t dim $k: exit status $?"
        wellformed "$tmp" || fail "$t dim $k: not JSON"
        grep -q '"correct":false' "$tmp" && fail "$t dim $k: misplaced"
        grep -q '"max_link_load":[2-9]' "$tmp" && fail "$t dim $k: a link shared"
        json=$(sim --topo "$t" --dim "$k" --rule 1,-1 --bytes 700K --inplace --check --json)
        [ "$(field correct)" = true ] || fail "$t dim $k rule 1,-1 in place: misplaced"
        k=$((k + 1))
    done
done

# in place: the runtime's pieces (max(256 KiB, M/64)) and slots, steps
# K*n + 1 for K pieces of a schedule of n steps; text output
json=$(sim --topo mesh:4x4 --dim 1 --disp 2 --bytes 1M --inplace --check --json)
[ "$(field piece)" = 262144 ] && [ "$(field slots)" = 4 ] && [ "$(field steps)" = 9 ] &&
    [ "$(field correct)" = true ] ||
    fail "in place 1 MiB: piece $(field piece), slots $(field slots), steps $(field steps)"
json=$(sim --topo ring:5 --dim 0 --disp -7 --bytes 3M --inplace --piece 100K --slots 2 --check --json)
[ "$(field piece)" = 102400 ] && [ "$(field tmp_bytes)" = 204800 ] && [ "$(field steps)" = 63 ] &&
    [ "$(field correct)" = true ] ||
    fail "in place, 31 pieces: piece $(field piece), tmp $(field tmp_bytes), steps $(field steps)"
out=$(sim --topo mesh:4x4 --dim 0 --rule -1,0 --check) || fail "text output: exit status $?"
printf '%s\n' "$out" | grep -q '^correct  *yes' || fail "text output: no 'correct yes'"
printf '%s\n' "$out" | grep -q '^rule .*line 0\.\.3: 0 3 2 1' || fail "text output: no line displacements"

# bad arguments: exit status 2
for args in "--topo mesh:2x2 --dim 2 --disp 1" "--topo mesh:2x2 --dim 1" \
    "--topo mesh:2x2 --dim 1 --disp 1 --rule 1,0" "--topo mesh:2x2 --disp 1" \
    "--topo mesh:2x2 --dim 1 --rule 1" "--topo mesh:2x2 --dim 0 --disp x" \
    "--topo mesh:2x2 --dim 0 --disp 1 --piece 4K" "--topo otis-hypercube:4 --dim 2 --disp 1" \
    "--topo mesh:2x2 --dim 0 --disp 4294967296"; do
    # shellcheck disable=SC2086
    sim $args >/dev/null 2>&1
    rc=$?
    [ "$rc" = 2 ] || fail "'rtopo-sim shift-dim $args' exited $rc, expected 2"
done

echo "sim_dim: $fails failure(s), $(( $(date +%s) - start )) s"
[ "$fails" = 0 ]
