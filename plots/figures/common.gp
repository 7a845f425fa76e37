# common.gp: terminal, colours and style shared by every jlbench figure.
# plots/draw sets: datadir (prepared data), outfile, fmt (svg|png), and the
# loadpath so that `load "common.gp"` finds this file. A figure that needs
# more room sets width and height (pixels) before loading it. common.vars
# sets the variables of common.py's VARS for every figure.
if (!exists("width")) width = 960
if (!exists("height")) height = 600
if (fmt eq "svg") {
	set terminal svg size width,height dynamic noenhanced font "Sans,13" \
		background rgb "white"
} else {
	set terminal pngcairo size width,height noenhanced font "Sans,11" \
		background rgb "white"
}
set output outfile
set encoding utf8
set border 3
set tics nomirror out
set grid ytics lc rgb "#dddddd" lw 1
set key noautotitle
# one colour per variant, the same in every figure (common.py color())
set linetype 1 lc rgb "#1f77b4" lw 2 pt 7 ps 1.0
set linetype 2 lc rgb "#555555" lw 2 pt 5 ps 1.0
set linetype 3 lc rgb "#ff7f0e" lw 2 pt 9 ps 1.2
set linetype 4 lc rgb "#2ca02c" lw 2 pt 11 ps 1.2
set linetype 5 lc rgb "#9467bd" lw 2 pt 13 ps 1.2
set linetype 6 lc rgb "#8c564b" lw 2 pt 7 ps 1.0
set linetype 7 lc rgb "#e377c2" lw 2 pt 5 ps 1.0
set linetype 8 lc rgb "#17becf" lw 2 pt 9 ps 1.0
load datadir."/common.vars"
