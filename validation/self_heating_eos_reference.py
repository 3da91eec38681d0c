#!/usr/bin/python3
# The reference of tests/test_physics_integration.cpp (SelfHeatingFollowsTheOdeAtFirstOrder): a
# T-independent-composition toy decay x -> y (Z 6, A 12, Q 5 MeV, lambda = exp(T9) /s, rho 1e6,
# T9(0) = 1) heating an isochoric zone whose c_v is ideal ions + radiation + the exact ideal e-/e+
# gas, written here apart from src/physics/eos.hpp: the gas's internal energy by scipy quad over
# momentum (mu by brentq), c_v as its central difference in T, a cubic spline in T9 (checked to
# ~1e-9 at mid-points), then solve_ivp Radau at rtol 1e-12. Prints Y and T9 at 0.2 s, then the
# spline's largest relative error. Run: /usr/bin/python3 validation/self_heating_eos_reference.py
import numpy as np
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq
from scipy.interpolate import CubicSpline
kB=1.380649e-16; hbar=1.054571817e-27; me=9.1093837015e-28; c=2.99792458e10; NA=6.02214076e23
a=7.565733250e-15; R=kB*NA; MeV=1.602176634e-6
mc2=me*c*c; K0=(me*c/hbar)**3/np.pi**2
def kin(q): return q*q/(1+np.sqrt(1+q*q))
def fermi(z): return np.exp(-np.logaddexp(0,z))
def gas_energy(T,rho,ye):
    th=kB*T/mc2; target=rho*NA*ye/K0
    def integ(g,psi):
        edge=max(psi,0); qs=[0]+[np.sqrt(k*(k+2)) for k in (max(0,edge-40*th),edge,edge+40*th,edge+150*th)]
        return sum(quad(g,qs[i],qs[i+1],epsabs=1e-16*max(target,th**3),epsrel=1e-13,limit=400)[0] for i in range(4) if qs[i+1]>qs[i])
    def net(psi): return integ(lambda q:q*q*(fermi((kin(q)-psi)/th)-fermi((kin(q)+2+psi)/th)),psi)-target
    xF=np.cbrt(3*target); hi=xF*xF/(1+np.sqrt(1+xF*xF))+60*th
    psi=brentq(net,-1,hi,xtol=1e-16,rtol=1e-15,maxiter=500)
    u=integ(lambda q:q*q*(kin(q)*fermi((kin(q)-psi)/th)+(kin(q)+2)*fermi((kin(q)+2+psi)/th)),psi)
    return K0*mc2*u/rho
def cv_e(T,rho,ye,d=1e-4):
    return (gas_energy(T*(1+d),rho,ye)-gas_energy(T*(1-d),rho,ye))/(2*d*T)
rho=1e6; ye=0.5; Q=5.0
grid=np.linspace(0.95,2.6,166)
cvs=np.array([cv_e(t*1e9,rho,ye) for t in grid])
spl=CubicSpline(grid,cvs)
def cv(T9): return 1.5*R/12+4*a*(T9*1e9)**3/rho+spl(T9)
def rhs(t,y):
    Y,T9=y; lam=np.exp(T9)
    return [-lam*Y, Q*NA*MeV*lam*Y/cv(T9)/1e9]
sol=solve_ivp(rhs,(0,0.2),[1/12,1.0],method='Radau',rtol=1e-12,atol=[1e-16,1e-14])
print(repr(sol.y[0,-1]),repr(sol.y[1,-1]))
# spline check at midpoints
mid=0.5*(grid[1:]+grid[:-1])[::20]
print(max(abs(spl(m)/cv_e(m*1e9,rho,ye)-1) for m in mid))
