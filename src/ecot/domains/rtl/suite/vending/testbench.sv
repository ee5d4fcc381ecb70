module tb;
    reg        clk = 1'b0;
    reg        rst, nickel, dime, cancel;
    wire [4:0] credit, change;
    wire       vend;
    reg  [4:0] m_credit, m_change;
    reg        m_vend;
    integer    total, pick;
    integer errors, samples, cyc, seed;

    vending dut (.clk(clk), .rst(rst), .nickel(nickel), .dime(dime), .cancel(cancel),
                 .credit(credit), .vend(vend), .change(change));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 15;
        rst = 1'b1; nickel = 0; dime = 0; cancel = 0;
        {m_credit, m_vend, m_change} = 11'bx;
        for (cyc = 0; cyc < 800; cyc = cyc + 1) begin
            @(posedge clk);
            if (rst) {m_credit, m_vend, m_change} = 11'b0;
            else if (cancel) begin
                m_change = m_credit; m_credit = 0; m_vend = 0;
            end else begin
                total = m_credit + (dime ? 10 : nickel ? 5 : 0);
                if (total >= 15) begin m_vend = 1; m_change = total - 15; m_credit = 0; end
                else begin m_vend = 0; m_change = 0; m_credit = total; end
            end
            @(negedge clk);
            rst = (cyc < 2) || (cyc == 555);
            pick = $random(seed) & 15;
            nickel = (pick < 5) || (pick == 13);
            dime = (pick >= 5 && pick < 9) || (pick == 13);
            cancel = (pick == 9) || (pick == 14);
            #1;
            samples = samples + 1;
            if (credit !== m_credit) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=credit expected=%h got=%h", $time, m_credit, credit);
            end
            if (vend !== m_vend) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=vend expected=%h got=%h", $time, m_vend, vend);
            end
            if (change !== m_change) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=change expected=%h got=%h", $time, m_change, change);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
