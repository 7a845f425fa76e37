# scan.gp: the plot of a scan (plots/scan draws it): each measured
# commit's % change against the good end with its interval, sampled
# commits and bisection steps apart, joined in range order; each finding
# marked at its first changed commit (a line, its label on the top axis),
# or as a band over an untestable stretch that hides one.
# plots/scan sets datadir, outfile, fmt and the loadpath (plots/figures,
# for common.gp); datadir holds line.dat, sampled.dat and bisection.dat
# (x, % change, interval low, high), scan.vars and an empty common.vars.
height = 640
load "common.gp"
load datadir."/scan.vars"
mark = "#c03030"
set title metric." on ".workload." along the range: % change against the good end\n".subtitle
set xlabel "commit's position in the range (0: the good end)"
set ylabel "% change of ".metric." against the good end"
set xrange [xfirst - 0.5:xlast + 0.5]
set offsets 0, 0, graph 0.05, graph 0.05
set xzeroaxis lt -1 lw 1 dt 2
set key outside bottom center horizontal
# the findings' labels: tics of the top axis (the x axis's twin)
set link x2
set x2tics () nomirror out rotate by 25 left textcolor rgb mark
do for [k=1:nfind] {
	x = value(sprintf("fx%d", k))
	x0 = value(sprintf("fstart%d", k))
	if (value(sprintf("fkind%d", k)) == 1) {
		set arrow from x, graph 0 to x, graph 1 nohead lc rgb mark lw 1.5 dt 2 back
	} else {
		set object rect from x0, graph 0 to x, graph 1 \
			fc rgb mark fs transparent solid 0.12 noborder behind
	}
	set x2tics add (value(sprintf("flabel%d", k)) (x0 + x) / 2.0)
}
if (nfind == 0) { unset x2tics }
plot datadir."/line.dat" using 1:2 with lines lt 2 lw 1 title "measured commits, in range order", \
	datadir."/sampled.dat" using 1:2:3:4 with yerrorbars lt 1 pt 7 ps 1.2 \
		title (nsampled ? "sampled commits" : ""), \
	datadir."/bisection.dat" using 1:2:3:4 with yerrorbars lt 3 pt 9 ps 1.2 \
		title (nbisection ? "bisection steps" : ""), \
	keyentry with lines lc rgb mark lw 1.5 dt 2 \
		title (nfind ? "findings (change vs parent)" : "")
