// Chart helpers shared by the dashboard and the chat page (one copy): Chart.js with a
// palette a colour-blind reader can tell apart (Okabe–Ito), series told apart by line
// style as well as colour, and every chart followed by its numbers as a table for
// keyboard and screen-reader users.
/* global document, window */
'use strict';
(function () {
  const PALETTE = {
    blue: '#0072B2',
    orange: '#E69F00',
    green: '#009E73',
    vermillion: '#D55E00',
    purple: '#CC79A7',
    sky: '#56B4E9',
  };
  const number = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
  const money = new Intl.NumberFormat('en', {
    style: 'currency',
    currency: 'BRL',
    maximumFractionDigits: 0,
  });
  const money2 = new Intl.NumberFormat('en', {
    style: 'currency',
    currency: 'BRL',
    maximumFractionDigits: 2,
  });
  const percent = (value) =>
    value === null || value === undefined ? 'n/a' : value.toFixed(1) + ' %';
  const format = {
    number: (v) => number.format(v),
    money: (v) => money.format(v),
    money2: (v) => money2.format(v),
    percent,
  };

  /** A table of the chart's numbers, folded under the chart. */
  function dataTable(caption, labels, series) {
    const details = document.createElement('details');
    const summary = document.createElement('summary');
    summary.textContent = 'Show the numbers';
    const table = document.createElement('table');
    const cap = document.createElement('caption');
    cap.textContent = caption;
    const head = table.createTHead().insertRow();
    for (const title of ['', ...series.map((s) => s.label)]) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = title;
      head.append(th);
    }
    const body = table.createTBody();
    labels.forEach((label, i) => {
      const row = body.insertRow();
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = label;
      row.append(th);
      for (const s of series) row.insertCell().textContent = s.format(s.data[i]);
    });
    table.prepend(cap);
    details.append(summary, table);
    return details;
  }

  /**
   * Draws into `container` (emptied first): a canvas with an accessible name, then the
   * numbers. `series`: { label, data, format, color, dash?, axis?, colors? }.
   */
  function draw(container, { type, title, labels, series, horizontal, scales }) {
    container.replaceChildren();
    const box = document.createElement('div');
    box.className = 'chart-box';
    const canvas = document.createElement('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', title + ' (the numbers are in the table below)');
    box.append(canvas);
    container.append(box, dataTable(title, labels, series));
    const chart = new window.Chart(canvas, {
      type,
      data: {
        labels,
        datasets: series.map((s) => ({
          label: s.label,
          data: s.data,
          yAxisID: s.axis,
          borderColor: s.colors || s.color,
          backgroundColor: s.colors || s.color,
          borderDash: s.dash,
          borderWidth: type === 'line' ? 2 : 0,
          pointRadius: type === 'line' ? 0 : undefined,
          pointHitRadius: 8,
          tension: 0.2,
        })),
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        indexAxis: horizontal ? 'y' : 'x',
        interaction: { mode: 'index', intersect: false },
        plugins: {
          legend: { display: series.length > 1, labels: { usePointStyle: true } },
          tooltip: {
            callbacks: {
              label: (item) =>
                item.dataset.label + ': ' + series[item.datasetIndex].format(item.raw),
            },
          },
        },
        scales,
      },
    });
    container.dataset.points = String(labels.length);
    return chart;
  }

  /** Lines over time: `series` share the x labels; an `axis` of 'right' gets its own scale. */
  function line(container, title, labels, series) {
    const scales = { x: { ticks: { maxRotation: 0, autoSkipPadding: 12 } } };
    for (const s of series) {
      const axis = s.axis || 'y';
      scales[axis] = {
        position: axis === 'right' ? 'right' : 'left',
        beginAtZero: true,
        grid: { drawOnChartArea: axis !== 'right' },
        ticks: { callback: (v) => s.format(v) },
        title: { display: true, text: s.label },
      };
    }
    return draw(container, {
      type: 'line',
      title,
      labels,
      series: series.map((s) => ({ ...s, axis: s.axis || 'y' })),
      scales,
    });
  }

  /** Bars, one series; `horizontal` for a ranking with long names. */
  function bars(container, title, labels, s, horizontal) {
    const value = horizontal ? 'x' : 'y';
    const scales = { [value]: { beginAtZero: true, ticks: { callback: (v) => s.format(v) } } };
    if (horizontal) scales.y = { ticks: { autoSkip: false } };
    return draw(container, { type: 'bar', title, labels, series: [s], horizontal, scales });
  }

  /** Percent of revenue above which freight marks a candidate for a shipping or pricing change. */
  const FREIGHT_ALERT = 20;

  /**
   * How each read is drawn, by its MCP tool name, from the rows it answers (the REST
   * `data` or a tool result): the dashboard and the chat's answers draw the same way.
   */
  const views = {
    monthly_trends(container, data) {
      const rows = data.slice().reverse(); // newest first in the API; oldest first, as time reads
      const labels = rows.map((r) => r.sales_year + '-' + String(r.sales_month).padStart(2, '0'));
      return line(container, 'Monthly revenue and orders', labels, [
        {
          label: 'Revenue (BRL)',
          data: rows.map((r) => r.total_revenue),
          format: format.money,
          color: PALETTE.blue,
        },
        {
          label: 'Orders',
          data: rows.map((r) => r.total_orders),
          format: format.number,
          color: PALETTE.orange,
          dash: [6, 4],
          axis: 'right',
        },
      ]);
    },
    yoy_growth(container, data) {
      const rows = data.slice().reverse();
      const growth = rows.map((r) => r.yoy_growth_percentage);
      return bars(
        container,
        'Revenue growth over the previous year (%)',
        rows.map((r) => String(r.calendar_year)),
        {
          label: 'Growth',
          data: growth,
          format: format.percent,
          colors: growth.map((g) => (g !== null && g < 0 ? PALETTE.vermillion : PALETTE.blue)),
        },
      );
    },
    category_analysis(container, data) {
      const ratio = data.map((r) => r.freight_to_revenue_ratio);
      return bars(
        container,
        'Freight as a share of revenue (%)',
        data.map((r) => r.product_category_name),
        {
          label: 'Freight / revenue',
          data: ratio,
          format: format.percent,
          colors: ratio.map((v) =>
            v !== null && v > FREIGHT_ALERT ? PALETTE.orange : PALETTE.blue,
          ),
        },
        true,
      );
    },
  };

  window.Charts = { PALETTE, FREIGHT_ALERT, format, line, bars, dataTable, views };
})();
