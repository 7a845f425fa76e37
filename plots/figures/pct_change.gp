# pct_change.gp: % change of mean throughput vs the baseline, 95% CI, and
# 2011's values (averages of 5 boots, no CI published) when the run has them.
load "common.gp"
load datadir."/pct.vars"
set title "Change of ".pct_metric." vs ".baseline.", 95% CI, ".pct_method."\n".mode_title
set ylabel "% change of the mean"
set xrange [0.5:npct + 0.5]
set offsets 0, 0, graph 0.1, graph 0.1
set key top right
set xzeroaxis lt -1 lw 1 dt 2
plot datadir."/pct.dat" using 1:2:3:4:xtic(6) with yerrorbars lt 1 pt 7 \
		ps 1.3 title "here: % change, 95% CI", \
	"" using ($1 + 0.08):2:(sprintf("%+.2f%%", $2)) with labels left \
		offset 1,0 notitle, \
	"" using ($1 + 0.25):5 with points pt 9 ps 2 lc rgb "#c03030" \
		title pct_2011
