# history.gp: % change vs the baseline (hbase: the run's, or plots/draw
# --history-pair's) of every analysed run (results/history.csv), one tic per
# run (git commit and mode); dashed: 2011's values, when against atomic-read.
load "common.gp"
load datadir."/history.vars"
set title "Headline change vs ".hbase." across analysed runs, 95% CI\n(ops/s under icount, an instruction-path model; MB/s on tcg (emulated) and kvm (hardware))"
set ylabel "% change of mean throughput"
set xlabel "analysed run (git commit; mode and config other than full; Linux version)" offset 0,-2
set bmargin 6
set xrange [0.5:nruns + 0.5]
set xzeroaxis lt -1 lw 1 dt 2
set key outside top center horizontal
plot for [j=1:nhist] datadir.sprintf("/history_%d.dat", j) using 1:2:3:4 \
	with yerrorbars lt value(sprintf("hcolor%d", j)) \
	title value(sprintf("hlabel%d", j)), \
	datadir."/history_2011.dat" using 1:2:3 with lines lc variable dt 2 \
	title h2011
