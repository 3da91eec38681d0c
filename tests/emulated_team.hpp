// A team of threads emulated serially on the CPU, for the implicit and bdf team kernels' tests
// (test_implicit_team.cpp, test_bdf_team.cpp): the Team of kernels/implicit/implicit_team.hpp with
// its phases run in a chosen thread order and its reductions in the device's order (per thread,
// then a wave's shuffle tree, then the waves in order).
#pragma once

#include <cstdint>
#include <vector>

#include "implicit/implicit_team.hpp"

namespace zoneode {

enum class Order { forward, reverse, by_thread_descending };

// A team of `size` threads in waves of `wave`, emulated serially.
struct EmulatedTeam {
  int size = 256;
  int wave = 32;
  Order order = Order::forward;

  template <typename Body>
  void for_each(int count, Body&& body) const {
    if (order == Order::forward) {
      for (int i = 0; i < count; ++i) body(i);
    } else if (order == Order::reverse) {
      for (int i = count - 1; i >= 0; --i) body(i);
    } else {
      for (int t = size - 1; t >= 0; --t)
        for (int i = t; i < count; i += size) body(i);
    }
  }
  template <typename Body>
  void for_each_unsynced(int count, Body&& body) const {
    for_each(count, body);
  }
  int wave_lanes() const { return wave; }
  // The device's tree over a group's lanes: lane pairs, then pairs of pairs (lanes a power of two).
  static void tree(std::vector<double>& parts) {
    for (std::size_t mask = 1; mask < parts.size(); mask *= 2)
      for (std::size_t k = 0; k < parts.size(); k += 2 * mask) parts[k] = parts[k] + parts[k + mask];
  }
  template <int N, typename Part, typename Finish>
  void group_sums(int count, int lanes, Part&& part, Finish&& finish) const {
    for_each(count, [&](int i) {
      std::vector<std::vector<double>> v(N, std::vector<double>(lanes, 0.0));
      for (int lane = 0; lane < lanes; ++lane) {
        double mine[N] = {};
        part(i, lane, lanes, mine);
        for (int s = 0; s < N; ++s) v[s][lane] = mine[s];
      }
      double total[N];
      for (int s = 0; s < N; ++s) {
        tree(v[s]);
        total[s] = v[s][0];
      }
      finish(i, total);
    });
  }
  template <typename Body>
  void for_each_wave(int count, Body&& body) const {
    for_each(count, body);
  }
  // A round's lanes in the team's order (the tasks of a round are independent), each group's sums
  // added in the device's tree; the schedule must be laid out for this wave.
  template <typename Part, typename Finish>
  void wave_rounds(int rounds, const SolveLaneTask* tasks, const std::int32_t* lanes_of, Part&& part,
                   Finish&& finish) const {
    for (int v = 0; v < rounds; ++v) {
      const int lanes = lanes_of[v];
      std::vector<double> sums(wave);
      for_each(wave, [&](int lane) { sums[lane] = part(tasks[v * wave + lane], lanes); });
      for (int mask = 1; mask < lanes; mask *= 2)
        for (int k = 0; k < wave; k += 2 * mask) sums[k] = sums[k] + sums[k + mask];
      for_each(wave, [&](int lane) {
        if (tasks[v * wave + lane].row >= 0) finish(tasks[v * wave + lane], sums[lane]);
      });
    }
  }
  template <typename Count, typename Load, typename Body>
  void for_each_phase(int phases, Count&& count, Load&& load, Body&& body) const {
    for (int p = 0; p < phases; ++p) for_each(count(p), [&](int x) { body(load(p, x)); });
  }
  template <bool MAX, typename Term>
  double reduce(int count, Term&& term) const {
    auto combine = [](double a, double b) { return MAX ? combine_error(a, b) : a + b; };
    std::vector<double> partial(size, 0.0);
    std::vector<int> threads(size);
    for (int t = 0; t < size; ++t) threads[t] = order == Order::forward ? t : size - 1 - t;
    for (const int t : threads)
      for (int i = t; i < count; i += size) partial[t] = combine(partial[t], term(i));
    std::vector<double> waves;
    for (int w = 0; w < size / wave; ++w) {
      double* v = partial.data() + w * wave;
      for (int half = wave / 2; half > 0; half /= 2)
        for (int l = 0; l < half; ++l) v[l] = combine(v[l], v[l + half]);
      waves.push_back(v[0]);
    }
    double total = waves[0];
    for (std::size_t w = 1; w < waves.size(); ++w) total = combine(total, waves[w]);
    return total;
  }
  template <typename Term>
  double sum(int count, Term&& term) const {
    return reduce<false>(count, term);
  }
  template <typename Term>
  double max_error(int count, Term&& term) const {
    return reduce<true>(count, term);
  }
  // Several reductions over the same items (DeviceTeam::reduce_fused): terms called once per item,
  // in the team's order, then each reduced as max_error() or sum() reduces it.
  template <int MAXIMA, int SUMS, typename Terms>
  void reduce_fused(int count, Terms&& terms, double (&total)[MAXIMA + SUMS]) const {
    constexpr int N = MAXIMA + SUMS;
    std::vector<double> parts(static_cast<std::size_t>(count) * N);
    for_each(count, [&](int i) {
      double part[N];
      terms(i, part);
      for (int s = 0; s < N; ++s) parts[static_cast<std::size_t>(i) * N + s] = part[s];
    });
    for (int s = 0; s < N; ++s) {
      auto term = [&](int i) { return parts[static_cast<std::size_t>(i) * N + s]; };
      total[s] = s < MAXIMA ? reduce<true>(count, term) : reduce<false>(count, term);
    }
  }
  template <int N, typename Terms>
  void sums(int count, Terms&& terms, double (&total)[N]) const {
    reduce_fused<0, N>(count, terms, total);
  }
};

}  // namespace zoneode
