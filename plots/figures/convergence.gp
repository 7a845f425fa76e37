# convergence.gp: % change vs the baseline at each run length (the long
# profile): operations per second (solid) and tbench's MB/s (dashed).
load "common.gp"
load datadir."/convergence.vars"
set title "Change vs ".baseline." by run length, 95% CI (run ".conv_run.")\nsolid: operations per second; dashed: tbench's MB/s"
set ylabel "% change of the mean"
set xlabel "tbench seconds per run"
set logscale x
set xtics (20, 60, 180, 600)
set offsets graph 0.05, graph 0.05, graph 0.1, graph 0.1
set xzeroaxis lt -1 lw 1 dt 2
set key outside top center horizontal
plot for [j=1:nconv] datadir.sprintf("/conv_%d.dat", j) using \
	($1 * (1 + 0.02 * (j - nconv / 2.0))):2:3:4 with yerrorlines \
	lt value(sprintf("ccolor%d", j)) dt value(sprintf("cdash%d", j)) \
	title value(sprintf("ctitle%d", j))
