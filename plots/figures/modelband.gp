# modelband.gp: the modelled band of each kernel against the baseline: its
# gain (% fewer modelled cycles per operation; for the instruction path,
# % more operations per guest second) with the overlap rule of an
# out-of-order core, in order (every penalty in full: the upper bound of
# the cycles, not of the gain),
# and the instruction path (the headline), each with its 95% CI
# (analysis/models/modelcost.py band()). A model's figures, not a
# measurement of any CPU. The key sits below the points, one entry a column.
load "common.gp"
load datadir."/modelband.vars"
set title "Modelled gain vs ".bbase.", ".bpreset.": instruction path, with overlap, in order (a model, not hardware)\n".mode_title
set ylabel "gain vs ".bbase." (%), 95% CI"
set xlabel "kernel"
set xrange [0.5:nband + 0.5]
set offsets 0, 0, graph 0.1, graph 0.1
# 0 (no gain) always in view
set yrange [*<0:0<*]
set xzeroaxis lt -1 lw 1 dt 2
set xtics nomirror offset 0,-0.3
if (nband > 4) set xtics rotate by -30
set key below center horizontal Left reverse width 2 samplen 2 spacing 1.2
# one colour a column of the band (not of variants: x is the kernel),
# dx apart; the values are labels beside them (modelband.labels)
load datadir."/modelband.labels"
plot datadir."/modelband.dat" using ($1 - dx):3:4:5 with yerrorbars \
		lc rgb "#555555" pt 5 ps 1.2 lw 2 title bname1, \
	"" using 1:6:7:8:xtic(2) with yerrorbars lc rgb "#2ca02c" pt 7 ps 1.3 \
		lw 2 title bname2, \
	"" using ($1 + dx):9:10:11 with yerrorbars lc rgb "#c44e52" pt 9 \
		ps 1.4 lw 2 title bname3
